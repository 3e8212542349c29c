/* gpuq profile --nvtx-include NAME: only launches inside an NVTX range of
 * that name are profiled (gi_nvtx.h has the rule).  CUPTI reports NVTX
 * calls (CUPTI_CB_DOMAIN_NVTX) only when the program's NVTX loads CUPTI as
 * its injection library (NVTX_INJECTION64_PATH), and it must be the very
 * libcupti the collector runs on: a program may have loaded its own copy
 * (the torch wheel's), and a second copy would have no subscriber.  So the
 * collector names the copy it runs on, at cuInit; NVTX reads the variable
 * at the program's first NVTX call, and ranges opened before CUDA
 * initialized are not seen (docs/profile.md). */
#include <stdlib.h>
#include <string.h>

#include <nvtx3/nvToolsExt.h>
#include <generated_nvtx_meta.h>

#include "collector_internal.h"

#define g g_collector

static const CUpti_CallbackId nvtx_cbids[] = {
    CUPTI_CBID_NVTX_nvtxRangePushA,       CUPTI_CBID_NVTX_nvtxRangePushEx,
    CUPTI_CBID_NVTX_nvtxRangePop,         CUPTI_CBID_NVTX_nvtxDomainRangePushEx,
    CUPTI_CBID_NVTX_nvtxDomainRangePop,   CUPTI_CBID_NVTX_nvtxRangeStartA,
    CUPTI_CBID_NVTX_nvtxRangeStartEx,     CUPTI_CBID_NVTX_nvtxRangeEnd,
    CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, CUPTI_CBID_NVTX_nvtxDomainRangeEnd,
};

int gi_loaded_cupti(char *path, size_t len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 0;
    char line[GI_PATH_MAX + 256];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *p = strchr(line, '/');
        if (p && strstr(p, "/libcupti.so")) {
            p[strcspn(p, "\n")] = '\0';
            snprintf(path, len, "%s", p);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

int gi_nvtx_setup(void)
{
    const char *want = getenv(GI_ENV(GI_ENV_NVTX_INCLUDE));
    snprintf(g.nvtx_include, sizeof g.nvtx_include, "%s", want ? want : "");
    if (!g.nvtx_include[0])
        return 1; /* no filter */
    const char *set = getenv("NVTX_INJECTION64_PATH");
    char path[GI_PATH_MAX];
    if (!gi_loaded_cupti(path, sizeof path)) {
        gi_stand_down(GI_ERROR_CONFIG, "--nvtx-include: libcupti is not mapped in this process, "
                      "NVTX ranges cannot be followed");
        return 0;
    }
    if (set && set[0] && strcmp(set, path) != 0) {
        gi_stand_down(GI_ERROR_BUSY, "--nvtx-include: NVTX_INJECTION64_PATH is set to '%s' (another "
                      "tool's), not to the CUPTI that gpuq runs on (%s)", set, path);
        return 0;
    }
    setenv("NVTX_INJECTION64_PATH", path, 1);
    for (size_t i = 0; i < sizeof nvtx_cbids / sizeof nvtx_cbids[0]; i++) {
        CUptiResult rc = cuptiEnableCallback(1, g.subscriber, CUPTI_CB_DOMAIN_NVTX, nvtx_cbids[i]);
        if (rc != CUPTI_SUCCESS)
            return gi_cupti_failed("cuptiEnableCallback(nvtx)", rc);
    }
    gi_verbose("--nvtx-include '%s': NVTX through %s", g.nvtx_include, path);
    return 1;
}

/* An event attribute's name, when it is plain text. */
static const char *attr_name(const nvtxEventAttributes_t *a)
{
    return a && a->messageType == NVTX_MESSAGE_TYPE_ASCII ? a->message.ascii : NULL;
}

static void push(const char *name)
{
    gi_nvtx_thread *t = gi_thread_nvtx();
    if (t)
        gi_nvtx_push(t, name, g.nvtx_include);
}

static void pop(void)
{
    gi_nvtx_thread *t = gi_thread_nvtx();
    if (t)
        gi_nvtx_pop(t);
}

static void start(const void *ret, const char *name)
{
    if (!ret)
        return;
    pthread_mutex_lock(&g.lock);
    if (!gi_nvtx_start(&g.nvtx_open, *(const nvtxRangeId_t *)ret, name, g.nvtx_include))
        gi_verbose("out of memory: an NVTX range '%s' is not followed", name);
    pthread_mutex_unlock(&g.lock);
}

static void end(nvtxRangeId_t id)
{
    pthread_mutex_lock(&g.lock);
    gi_nvtx_end(&g.nvtx_open, id);
    pthread_mutex_unlock(&g.lock);
}

void gi_nvtx_on_callback(CUpti_CallbackId cbid, const void *data)
{
    const CUpti_NvtxData *d = data;
    const void *p = d->functionParams;
    if (!p && cbid != CUPTI_CBID_NVTX_nvtxRangePop)
        return;
    switch (cbid) {
    case CUPTI_CBID_NVTX_nvtxRangePushA:
        push(((const nvtxRangePushA_params *)p)->message);
        break;
    case CUPTI_CBID_NVTX_nvtxRangePushEx:
        push(attr_name(((const nvtxRangePushEx_params *)p)->eventAttrib));
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangePushEx:
        push(attr_name(((const nvtxDomainRangePushEx_params *)p)->core.eventAttrib));
        break;
    case CUPTI_CBID_NVTX_nvtxRangePop:
    case CUPTI_CBID_NVTX_nvtxDomainRangePop:
        pop();
        break;
    case CUPTI_CBID_NVTX_nvtxRangeStartA:
        start(d->functionReturnValue, ((const nvtxRangeStartA_params *)p)->message);
        break;
    case CUPTI_CBID_NVTX_nvtxRangeStartEx:
        start(d->functionReturnValue, attr_name(((const nvtxRangeStartEx_params *)p)->eventAttrib));
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeStartEx:
        start(d->functionReturnValue,
              attr_name(((const nvtxDomainRangeStartEx_params *)p)->core.eventAttrib));
        break;
    case CUPTI_CBID_NVTX_nvtxRangeEnd:
        end(((const nvtxRangeEnd_params *)p)->id);
        break;
    case CUPTI_CBID_NVTX_nvtxDomainRangeEnd:
        end(((const nvtxDomainRangeEnd_params *)p)->core.id);
        break;
    default:
        break;
    }
}

int gi_nvtx_inside(void)
{
    gi_nvtx_thread *t = gi_thread_nvtx();
    if (t && gi_nvtx_thread_inside(t))
        return 1;
    pthread_mutex_lock(&g.lock);
    int open = gi_nvtx_open_inside(&g.nvtx_open);
    pthread_mutex_unlock(&g.lock);
    return open;
}
