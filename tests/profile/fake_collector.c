/* Plays the collector's side of gpuq profile's protocol, without CUDA, so
 * that the command's side is tested on any machine (protocol_check.sh):
 * each process expands GPUQ_OUT as the collector does (gi_pattern.h),
 * writes a counters file copied from a template (under the name +
 * GPUQ_OUT_TMP, as the collector), its status file
 * <GPUQ_STATUS>.<pid> and, on request, a graphs file <status>.graphs.
 *
 *   fake_collector PROCESSES TEMPLATE [graphs]
 *
 * PROCESSES-1 children are forked first (each writes its own files, as the
 * workers of a launcher would); "graphs" makes the last process say that a
 * graph of 2 kernel nodes was launched twice and profiled node by node
 * (its last 4 rows), that another graph was not, and that 2 launches ran
 * during a capture.  Prints one
 * line per process and exits 0, or as FAKE_EXIT says (a status, "abort"). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "inject/gi_pattern.h"
#include "inject/gi_protocol.h"

static int play(const char *template_path, int graphs)
{
    const char *pattern = getenv(GI_ENV(GI_ENV_OUT)), *status = getenv(GI_ENV(GI_ENV_STATUS));
    if (!pattern || !status) {
        fprintf(stderr, "fake_collector: GPUQ_OUT and GPUQ_STATUS must be set\n");
        return 1;
    }
    char host[256] = "", out[PATH_MAX];
    gethostname(host, sizeof host - 1);
    gi_pattern_values v = {(long)getpid(), host, 0, NULL, NULL};
    gm_error err = {{0}};
    if (gi_pattern_expand(pattern, &v, out, sizeof out, &err) != GM_OK) {
        fprintf(stderr, "fake_collector: %s\n", err.msg);
        return 1;
    }
    /* as the collector: written under the output name + GPUQ_OUT_TMP, which
     * gpuq renames when the run is over */
    const char *tmp = getenv("GPUQ_OUT_TMP");
    size_t len = strlen(out);
    snprintf(out + len, sizeof out - len, "%s", tmp ? tmp : "");
    FILE *in = fopen(template_path, "r"), *o = fopen(out, "w");
    if (!in || !o) {
        fprintf(stderr, "fake_collector: cannot copy %s to %s\n", template_path, out);
        return 1;
    }
    char line[4096], device[128] = "";
    long rows = 0;
    while (fgets(line, sizeof line, in)) {
        if (sscanf(line, "# device_name: %127[^\n]", device) != 1 && line[0] != '#' &&
            strncmp(line, "launch_id,", 10) != 0)
            rows++;
        fputs(line, o);
    }
    fclose(in);
    fclose(o);
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s.%ld", status, (long)getpid());
    FILE *s = fopen(path, "w");
    if (!s)
        return 1;
    /* What the collector writes, through the protocol's one writer. */
    gi_status st;
    memset(&st, 0, sizeof st);
    st.pid = (long)getpid();
    snprintf(st.pass, sizeof st.pass, "counters");
    snprintf(st.output, sizeof st.output, "%s", out);
    snprintf(st.device_name, sizeof st.device_name, "%s", device);
    st.sm_count = 2;
    st.cc_major = 9;
    snprintf(st.replay, sizeof st.replay, "user");
    st.passes = 1;
    st.launches_seen = st.profiled = st.rows = rows;
    st.graphs = graphs ? 3 : 0;
    st.capture_skipped = graphs ? 2 : 0;
    st.graph_profiled = graphs ? 2 : 0;
    st.graph_nodes = graphs ? 4 : 0;
    st.drained = 1;
    snprintf(st.error_kind, sizeof st.error_kind, "%s", gi_error_kind_name(GI_ERROR_NONE));
    if (gi_status_write(s, &st) != 0 || fclose(s) != 0)
        return 1;
    if (graphs && rows >= 4) {
        snprintf(path, sizeof path, "%s.%ld.graphs", status, (long)getpid());
        FILE *g = fopen(path, "w");
        if (!g)
            return 1;
        fprintf(g, "graph,7,2,profiled,\n");
        for (int l = 0; l < 2; l++) {
            for (int n = 0; n < 2; n++)
                fprintf(g, "node,%ld,7,%d,%d,%d\n", rows - 4 + 2 * l + n, l, n, 100 + n);
            fprintf(g, "glaunch,7,%d,1\n", l);
        }
        fprintf(g, "graph,9,3,not_profiled,its kernel nodes run on parallel branches\n"
                   "glaunch,9,2,0\n");
        fclose(g);
    }
    printf("fake_collector %ld: %ld rows in %s\n", (long)getpid(), rows, out);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: fake_collector PROCESSES TEMPLATE [graphs]\n");
        return 2;
    }
    int procs = atoi(argv[1]);
    int graphs = argc > 3 && strcmp(argv[3], "graphs") == 0;
    fflush(stdout);
    for (int i = 1; i < procs; i++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(play(argv[2], 0));
        waitpid(pid, NULL, 0); /* one after another: the output stays in order */
    }
    int rc = play(argv[2], graphs);
    /* FAKE_EXIT: how the program ends after its launches (the exit status
     * gpuq passes on): a number, or "abort". */
    const char *how = getenv("FAKE_EXIT");
    if (rc == 0 && how && strcmp(how, "abort") == 0)
        abort();
    if (rc == 0 && how && how[0])
        rc = atoi(how);
    return rc;
}
