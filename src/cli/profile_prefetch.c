/* gpuq profile: work done while the program runs (the machine data, the
 * disassembly of each kernel as soon as its code is saved), and the small
 * file helpers the code pass shares. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "host/host_decode_sm90.h"
#include "host/host_sass.h"
#include "profile.h"

double prof_ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

/* What the collector's status file says of the device once it is set up
 * (prof_read_status: device_name, sm_count, compute_capability). */
static void status_device_of(machine_prefetch *mp, const char *path)
{
    collector_status s;
    prof_read_status(path, &s);
    if (s.device_name[0] && s.sm_count > 0 && s.cc_major > 0) {
        snprintf(mp->device_name, sizeof mp->device_name, "%s", s.device_name);
        mp->sm_count = s.sm_count;
        mp->cc_major = s.cc_major;
        mp->cc_minor = s.cc_minor;
        mp->have_device = 1;
    }
}

/* The first process that named its device (status files <prefix>.<pid>). */
static void status_device(machine_prefetch *mp)
{
    char **files = NULL;
    size_t n = prof_status_files(mp->status_path, &files);
    for (size_t i = 0; i < n && !mp->have_device; i++)
        status_device_of(mp, files[i]);
    prof_free_list(files, n);
}

/* The GPU model the driver lists in /proc/driver/nvidia/gpus/ * /information
 * ("Model:  NVIDIA H200"), when all GPUs are of one model. */
static void proc_gpu_model(char *model, size_t len)
{
    model[0] = '\0';
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    if (!d)
        return;
    struct dirent *e;
    int conflict = 0;
    while (!conflict && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[PATH_MAX], line[256];
        snprintf(path, sizeof path, "/proc/driver/nvidia/gpus/%.200s/information", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "Model:", 6) != 0)
                continue;
            char *v = line + 6;
            v += strspn(v, " \t");
            v[strcspn(v, "\r\n")] = '\0';
            if (model[0] && strcmp(model, v) != 0)
                conflict = 1;
            else
                snprintf(model, len, "%s", v);
            break;
        }
        fclose(f);
    }
    closedir(d);
    if (conflict)
        model[0] = '\0';
}

/* The machine data of the run's sections for the device guessed (gpu_name
 * NULL: none yet, then only what --table names), as cli_machine_load would
 * load it; nothing when that fails (report() then loads it and says why). */
static void prefetch_load(machine_prefetch *mp, const char *gpu_name, int sm_count,
                          const struct timespec *start)
{
    gm_error err = {{0}};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    mp->done = 1;
    const char *suites[2 * GM_MACHINE_MAX_FILES + 1];
    cli_needed_suites(mp->r, suites, sizeof suites / sizeof suites[0]);
    char override[PATH_MAX + 48];
    const char *overrides[2] = {cli_table_override(mp->r, override, sizeof override), NULL};
    gm_machine *m = calloc(1, sizeof *m);
    if (!suites[0] || !m) {
        free(m);
        return;
    }
    cli_search_dirs();
    if (gm_machine_load(m, gpu_name ? gpu_name : "", sm_count, suites, overrides, mp->r->force,
                        &err) != GM_OK) {
        free(m); /* gm_machine_load freed what it had loaded */
        return;
    }
    mp->machine = m;
    mp->load_ms = prof_ms_since(&t0);
    mp->ready_ms = prof_ms_since(start);
}

void prof_prefetch_free(machine_prefetch *mp)
{
    gm_machine_free(mp->machine);
    free(mp->machine);
    mp->machine = NULL;
}

/* Reads a whole file (a cubin) into memory. */
uint8_t *prof_read_whole(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *data = NULL;
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && sb.st_size > 0) {
        data = malloc((size_t)sb.st_size);
        if (data && fread(data, 1, (size_t)sb.st_size, f) != (size_t)sb.st_size) {
            free(data);
            data = NULL;
        }
        *size = (size_t)sb.st_size;
    }
    fclose(f);
    return data;
}

/* The saved cubins (<dir>/ *.cubin), as malloc'ed paths. */
size_t prof_list_cubins(const char *dir, char ***out)
{
    char **cubins = NULL;
    size_t n = 0;
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            size_t l = strlen(e->d_name);
            if (l < 7 || strcmp(e->d_name + l - 6, ".cubin") != 0)
                continue;
            char **grown = realloc(cubins, (n + 1) * sizeof *grown);
            if (!grown)
                break;
            cubins = grown;
            size_t plen = strlen(dir) + l + 2;
            if ((cubins[n] = malloc(plen)) != NULL)
                snprintf(cubins[n++], plen, "%s/%s", dir, e->d_name);
        }
        closedir(d);
    }
    *out = cubins;
    return n;
}

void prof_free_list(char **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

/* Writes len bytes of code to path. */
int prof_write_code(const char *path, const uint8_t *code, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    int ok = fwrite(code, 1, len, f) == len;
    return fclose(f) == 0 && ok;
}

/* Starts `nvdisasm -b ARCH CODE > OUT` and returns its pid (0 on failure). */
static pid_t spawn_raw_disassembly(const char *tool, const char *arch, const char *code,
                                   const char *out)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int null = open("/dev/null", O_WRONLY);
        if (fd < 0)
            _exit(126);
        dup2(fd, 1);
        if (null >= 0)
            dup2(null, 2);
        execl(tool, tool, "-b", arch, code, (char *)NULL);
        _exit(127);
    }
    return pid > 0 ? pid : 0;
}

static void index_function(void *ctx, const char *name, size_t offset, size_t length)
{
    disasm_spec *sp = ctx;
    if (sp->n_code == sp->cap_code) {
        size_t cap = sp->cap_code ? 2 * sp->cap_code : 64;
        spec_code *grown = realloc(sp->code, cap * sizeof *grown);
        if (!grown)
            return;
        sp->code = grown;
        sp->cap_code = cap;
    }
    char *copy = strdup(name);
    if (!copy)
        return;
    sp->code[sp->n_code++] = (spec_code){copy, sp->n_cubins, offset, length};
}

/* Indexes the kernels of the cubins saved since the last look (each file is
 * read once). */
static void index_new_cubins(disasm_spec *sp)
{
    char **cubins = NULL;
    size_t n = prof_list_cubins(sp->cubin_dir, &cubins);
    for (size_t c = 0; c < n; c++) {
        int known = 0;
        for (size_t k = 0; k < sp->n_cubins && !known; k++)
            known = strcmp(sp->cubins[k], cubins[c]) == 0;
        if (known)
            continue;
        char **grown = realloc(sp->cubins, (sp->n_cubins + 1) * sizeof *grown);
        if (!grown)
            break;
        sp->cubins = grown;
        size_t size = 0;
        uint8_t *elf = prof_read_whole(cubins[c], &size);
        if (elf)
            host_cubin_each_function(elf, size, index_function, sp);
        free(elf);
        sp->cubins[sp->n_cubins++] = cubins[c];
        cubins[c] = NULL;
    }
    prof_free_list(cubins, n);
}

/* length bytes at offset of file path (malloc'ed), or NULL. */
uint8_t *prof_read_range(const char *path, size_t offset, size_t length)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return NULL;
    uint8_t *buf = malloc(length ? length : 1);
    if (buf && (fseek(in, (long)offset, SEEK_SET) != 0 || fread(buf, 1, length, in) != length)) {
        free(buf);
        buf = NULL;
    }
    fclose(in);
    return buf;
}

/* Copies length bytes at offset of file src into a new file dst. */
static int copy_code(const char *src, size_t offset, size_t length, const char *dst)
{
    uint8_t *buf = prof_read_range(src, offset, length);
    int ok = buf && prof_write_code(dst, buf, length);
    free(buf);
    return ok;
}

/* Whether kernels' code for arch ("SM90") is read by gpuq's Hopper reader
 * (GPUQ_NO_DECODER leaves it to the disassembler). */
int prof_use_decoder(const char *arch)
{
    return strcmp(arch, "SM90") == 0 && !getenv("GPUQ_NO_DECODER");
}

/* Reads a kernel's code with the built-in Hopper reader when the device is
 * compute capability 9.0 and every instruction is one it knows (in
 * microseconds, where nvdisasm takes about 0.3 s to start); 0 otherwise. */
static int decode_code(const gm_code_pass *pass, const char *cubin, size_t offset, size_t length,
                       const char *arch, gm_kernel_code *read)
{
    if (!prof_use_decoder(arch))
        return 0;
    uint8_t *code = prof_read_range(cubin, offset, length);
    int ok = code && host_sm90_read(code, length, pass->mark, read);
    free(code);
    return ok;
}

/* One look while the program runs: new kernel names, and disassemblies for
 * those whose code a saved cubin now holds. */
static void spec_poll(disasm_spec *sp, const machine_prefetch *tp)
{
    if (!sp->enabled || !sp->pass || !tp->have_device || sp->tool_state < 0)
        return;
    if (sp->tool_state == 0) {
        gm_error err = {{0}};
        const char *base;
        if (host_find_disassembler(sp->tool, sizeof sp->tool, &err) != GM_OK ||
            !(base = strrchr(sp->tool, '/')) || !strstr(base, "nvdisasm")) {
            sp->tool_state = -1; /* no raw mode: the code pass does it all afterwards */
            return;
        }
        sp->tool_state = 1;
    }
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/kernels.txt", sp->cubin_dir);
    FILE *f = fopen(path, "r");
    if (f && fseek(f, sp->names_read, SEEK_SET) == 0) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            size_t n = strlen(line);
            if (n == 0 || line[n - 1] != '\n')
                break; /* a line still being written: read it next time */
            sp->names_read += (long)n;
            line[n - 1] = '\0';
            if (sp->n_pending + sp->n_jobs < GPUQ_SPEC_MAX)
                snprintf(sp->pending[sp->n_pending++], sizeof sp->pending[0], "%s", line);
        }
    }
    if (f)
        fclose(f);
    if (sp->n_pending == 0)
        return;
    index_new_cubins(sp);
    char arch[16];
    snprintf(arch, sizeof arch, "SM%d%d", tp->cc_major, tp->cc_minor);
    size_t kept = 0;
    for (size_t p = 0; p < sp->n_pending; p++) {
        int found = 0;
        for (size_t i = 0; i < sp->n_code && sp->n_jobs < GPUQ_SPEC_MAX; i++) {
            const spec_code *c = &sp->code[i];
            if (strcmp(c->name, sp->pending[p]) != 0)
                continue;
            found = 1;
            spec_job *j = &sp->jobs[sp->n_jobs];
            memset(j, 0, sizeof *j);
            snprintf(j->name, sizeof j->name, "%s", c->name);
            snprintf(j->cubin, sizeof j->cubin, "%s", sp->cubins[c->cubin]);
            snprintf(j->code, sizeof j->code, "%s/spec-%zu.code", sp->work_dir, sp->n_jobs);
            snprintf(j->out, sizeof j->out, "%s/spec-%zu.sass", sp->work_dir, sp->n_jobs);
            if (decode_code(sp->pass, j->cubin, c->offset, c->length, arch, &j->code_read)) {
                j->ok = 1; /* read in-process: no disassembler */
                j->decoded = 1;
                sp->n_jobs++;
            } else if (copy_code(j->cubin, c->offset, c->length, j->code) &&
                (j->pid = spawn_raw_disassembly(sp->tool, arch, j->code, j->out)) > 0)
                sp->n_jobs++;
        }
        if (!found)
            memmove(sp->pending[kept++], sp->pending[p], sizeof sp->pending[0]);
    }
    sp->n_pending = kept;
}

/* After the program: waits for the disassemblies still running and reads
 * them. */
void prof_spec_finish(disasm_spec *sp)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t i = 0; i < sp->n_jobs; i++) {
        spec_job *j = &sp->jobs[i];
        if (j->pid <= 0)
            continue;
        int status = 0;
        while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
            ;
        j->pid = 0;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
            size_t size = 0;
            char *text = (char *)prof_read_whole(j->out, &size);
            if (text) {
                char *z = realloc(text, size + 1);
                if (z) {
                    z[size] = '\0';
                    host_code_scan(z, sp->pass->mark, &j->code_read);
                    j->ok = j->code_read.instructions > 0;
                    text = z;
                }
                free(text);
            }
        }
        unlink(j->code);
        unlink(j->out);
    }
    sp->wait_ms = prof_ms_since(&t0);
    for (size_t i = 0; i < sp->n_code; i++)
        free(sp->code[i].name);
    free(sp->code);
    sp->code = NULL;
    sp->n_code = sp->cap_code = 0;
    prof_free_list(sp->cubins, sp->n_cubins);
    sp->cubins = NULL;
    sp->n_cubins = 0;
}

/* Runs while the program does: returns 1 when it reaped the program (its
 * wait status in *status), 0 when the program still runs. */
int prof_while_running(machine_prefetch *tp, disasm_spec *sp, pid_t pid, int *status,
                       const struct timespec *start)
{
    proc_gpu_model(tp->proc_model, sizeof tp->proc_model);
    for (;;) {
        pid_t done = waitpid(pid, status, WNOHANG);
        if (done == pid)
            return 1;
        if (done < 0 && errno != EINTR)
            return 0; /* the blocking wait reports it */
        if (!tp->have_device)
            status_device(tp);
        spec_poll(sp, tp);
        if (!tp->done) {
            /* at once where /proc names the model, or with --table (then
             * that file alone); else once the collector names the device */
            if (tp->proc_model[0])
                prefetch_load(tp, tp->proc_model, 0, start);
            else if (tp->r->table)
                prefetch_load(tp, NULL, 0, start);
            else if (tp->have_device)
                prefetch_load(tp, tp->device_name, tp->sm_count, start);
        }
        if (tp->done && (!sp->enabled || sp->tool_state < 0))
            return 0; /* nothing left to do but wait */
        struct timespec nap = {0, 3000000};
        nanosleep(&nap, NULL);
    }
}
