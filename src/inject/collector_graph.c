/* Kernel nodes of CUDA graphs (see collector_graph.h).
 *
 * A graph launch (cuGraphLaunch) is one driver call for all its nodes; the
 * launch callbacks see no node.  What the collector knows of the nodes it
 * reads at instantiation (cuGraphInstantiate*, cuGraphExecUpdate): the
 * kernel nodes in topological order, each one's function, grid, block and
 * node id.  A launch of such a graph gets a range profiler window of its
 * own (auto ranges, capacity = its kernel nodes): CUPTI numbers auto ranges
 * in the order the kernels ran, so range i is kernel node i when the graph
 * fixes one order of its kernel nodes (every kernel node depends, directly
 * or not, on the one before).  Where the kernels run on parallel branches,
 * or the graph holds child graphs or conditional nodes, or CUPTI's range
 * count differs from the kernel-node count, the launches are not attributed
 * and the graphs file says why, with the numbers.
 */
#include <stdlib.h>
#include <string.h>

#include "collector_graph.h"
#include "collector_internal.h"
#include "collector_range.h"
#include "collector_sass.h"
#include "gi_graph_order.h"
#include "gi_graph_registry.h"

#define g g_collector

typedef struct gi_graph_node {
    char *mangled, *name;
    uint64_t node_id;
    unsigned grid[3], block[3];
    int regs, shared;
} gi_graph_node;

typedef struct gi_graph_exec {
    gi_reg_node *node;      /* its entry in the registry (references) */
    uint32_t id;            /* CUPTI's graph exec id, else gpuq's own number */
    size_t n_kernels;
    gi_graph_node *nodes;   /* kernel nodes in execution order */
    char why[200];          /* non-empty: the launches cannot be attributed */
    int said_profiled, said_not; /* the graph line of each kind was written */
} gi_graph_exec;

static void free_exec(void *item);

/* The live graph execs (gi_graph_registry.h): a record is freed when its
 * handle is destroyed or updated and no launch holds it, so a program that
 * instantiates graphs for hours keeps only its live ones here.  Every
 * registry call, and each record's said_* flags, under graphs_lock. */
static pthread_mutex_t graphs_lock = PTHREAD_MUTEX_INITIALIZER;
static gi_registry graphs = {.free_item = free_exec};
/* Set when CUPTI refused a graph window: no later graph launch is tried. */
static char graph_refused[256];
static uint32_t next_own_id = 1u << 31;

int gi_graph_is_instantiate(CUpti_CallbackId cbid)
{
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiate_v2 ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithFlags ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphInstantiateWithParams_ptsz ||
           cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2;
}

int gi_graph_is_exec_destroy(CUpti_CallbackId cbid)
{
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecDestroy;
}

static void free_nodes(gi_graph_exec *r)
{
    for (size_t i = 0; i < r->n_kernels; i++) {
        free(r->nodes[i].mangled);
        free(r->nodes[i].name);
    }
    free(r->nodes);
    r->nodes = NULL;
    r->n_kernels = 0;
}

static void free_exec(void *item)
{
    gi_graph_exec *r = item;
    if (r) {
        free_nodes(r);
        free(r);
    }
}

static int read_kernel_node(CUgraphNode node, gi_graph_node *out)
{
    memset(out, 0, sizeof *out);
    CUDA_KERNEL_NODE_PARAMS p;
    memset(&p, 0, sizeof p);
    if (cuGraphKernelNodeGetParams(node, &p) != CUDA_SUCCESS)
        return 0;
    CUfunction f = p.func;
    if (!f && p.kern && cuKernelGetFunction(&f, p.kern) != CUDA_SUCCESS)
        f = NULL;
    const char *mangled = NULL;
    if (f && cuFuncGetName(&mangled, f) != CUDA_SUCCESS)
        mangled = NULL;
    out->mangled = strdup(mangled ? mangled : "(unnamed kernel)");
    out->name = out->mangled ? gi_demangle(out->mangled) : NULL;
    if (!out->mangled || !out->name)
        return 0;
    cuptiGetGraphNodeId(node, &out->node_id);
    out->grid[0] = p.gridDimX, out->grid[1] = p.gridDimY, out->grid[2] = p.gridDimZ;
    out->block[0] = p.blockDimX, out->block[1] = p.blockDimY, out->block[2] = p.blockDimZ;
    out->regs = out->shared = -1;
    int r = 0, s = 0;
    if (f && cuFuncGetAttribute(&r, CU_FUNC_ATTRIBUTE_NUM_REGS, f) == CUDA_SUCCESS)
        out->regs = r;
    if (f && cuFuncGetAttribute(&s, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) == CUDA_SUCCESS)
        out->shared = s + (int)p.sharedMemBytes;
    return 1;
}

typedef struct node_ref {
    CUgraphNode node;
    size_t index;
} node_ref;

static int ref_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const node_ref *)a)->node, y = (uintptr_t)((const node_ref *)b)->node;
    return x < y ? -1 : x > y;
}

static size_t index_of(const node_ref *refs, size_t n, CUgraphNode node)
{
    node_ref key = {node, 0};
    const node_ref *hit = bsearch(&key, refs, n, sizeof *refs, ref_cmp);
    return hit ? hit->index : SIZE_MAX;
}

/* Reads the kernel nodes of graph into r, in a topological order, and
 * whether that is the only order they can run in (gi_graph_order). */
static void read_graph(CUgraph graph, gi_graph_exec *r)
{
    size_t n = 0;
    if (cuGraphGetNodes(graph, NULL, &n) != CUDA_SUCCESS) {
        snprintf(r->why, sizeof r->why, "its nodes could not be read (cuGraphGetNodes)");
        return;
    }
    if (n == 0)
        return;
    CUgraphNode *all = calloc(n, sizeof *all);
    node_ref *refs = calloc(n, sizeof *refs);
    size_t **deps = calloc(n, sizeof *deps), *n_deps = calloc(n, sizeof *n_deps),
           *order = calloc(n, sizeof *order);
    unsigned char *is_kernel = calloc(n, 1);
    if (!all || !refs || !deps || !n_deps || !order || !is_kernel ||
        cuGraphGetNodes(graph, all, &n) != CUDA_SUCCESS) {
        snprintf(r->why, sizeof r->why, "its nodes could not be read (cuGraphGetNodes)");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        refs[i] = (node_ref){all[i], i};
    qsort(refs, n, sizeof *refs, ref_cmp);
    size_t kernels = 0;
    for (size_t i = 0; i < n; i++) {
        CUgraphNodeType type;
        size_t nd = 0;
        if (cuGraphNodeGetType(all[i], &type) != CUDA_SUCCESS ||
            cuGraphNodeGetDependencies(all[i], NULL, NULL, &nd) != CUDA_SUCCESS) {
            snprintf(r->why, sizeof r->why, "its nodes could not be read");
            goto out;
        }
        if (type == CU_GRAPH_NODE_TYPE_GRAPH || type == CU_GRAPH_NODE_TYPE_CONDITIONAL) {
            snprintf(r->why, sizeof r->why, "it holds %s nodes, whose kernels gpuq does not "
                     "read", type == CU_GRAPH_NODE_TYPE_GRAPH ? "child graph" : "conditional");
            goto out;
        }
        is_kernel[i] = type == CU_GRAPH_NODE_TYPE_KERNEL;
        kernels += is_kernel[i];
        if (nd == 0)
            continue;
        CUgraphNode *dn = calloc(nd, sizeof *dn);
        deps[i] = calloc(nd, sizeof *deps[i]);
        if (!dn || !deps[i] || cuGraphNodeGetDependencies(all[i], dn, NULL, &nd) != CUDA_SUCCESS) {
            free(dn);
            snprintf(r->why, sizeof r->why, "its dependencies could not be read");
            goto out;
        }
        for (size_t d = 0; d < nd; d++) {
            size_t j = index_of(refs, n, dn[d]);
            if (j != SIZE_MAX)
                deps[i][n_deps[i]++] = j;
        }
        free(dn);
    }
    int one_order = 0;
    int ordered = gi_graph_order(n, (const size_t *const *)deps, n_deps, is_kernel, order,
                                 &one_order);
    if (ordered <= 0) {
        snprintf(r->why, sizeof r->why, "%s", ordered < 0 ? "out of memory"
                                                        : "its dependencies could not be ordered");
        goto out;
    }
    r->nodes = calloc(kernels ? kernels : 1, sizeof *r->nodes);
    if (!r->nodes) {
        snprintf(r->why, sizeof r->why, "out of memory");
        goto out;
    }
    for (size_t p = 0; p < n; p++) {
        size_t i = order[p];
        if (!is_kernel[i])
            continue;
        if (!read_kernel_node(all[i], &r->nodes[r->n_kernels])) {
            free(r->nodes[r->n_kernels].mangled);
            free(r->nodes[r->n_kernels].name);
            snprintf(r->why, sizeof r->why, "a kernel node could not be read");
            goto out;
        }
        r->n_kernels++;
    }
    if (!one_order)
        snprintf(r->why, sizeof r->why,
                 "its kernel nodes run on parallel branches: CUPTI numbers auto ranges in the "
                 "order the kernels ran, which the graph leaves open");
out:
    for (size_t i = 0; deps && i < n; i++)
        free(deps[i]);
    free(deps);
    free(n_deps);
    free(all);
    free(refs);
    free(order);
    free(is_kernel);
}

static gi_graph_exec *find_locked(CUgraphExec exec)
{
    gi_reg_node *n = exec ? gi_registry_peek(&graphs, exec) : NULL;
    return n ? n->item : NULL;
}

/* A launch is done with r (gi_graph_launch_begin took it). */
static void release(gi_graph_exec *r)
{
    pthread_mutex_lock(&graphs_lock);
    gi_registry_release(&graphs, r->node);
    pthread_mutex_unlock(&graphs_lock);
}

void gi_graph_instantiated(CUpti_CallbackId cbid, const CUpti_CallbackData *cb)
{
    if (g.disabled)
        return;
    const CUresult *rv = cb->functionReturnValue;
    if (!cb->functionParams || (rv && *rv != CUDA_SUCCESS))
        return;
    CUgraphExec exec;
    CUgraph graph;
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphExecUpdate_v2) {
        const cuGraphExecUpdate_v2_params *p = cb->functionParams;
        exec = p->hGraphExec;
        graph = p->hGraph;
    } else {
        /* Every cuGraphInstantiate* starts with (CUgraphExec *, CUgraph). */
        const cuGraphInstantiateWithFlags_params *p = cb->functionParams;
        if (!p->phGraphExec)
            return;
        exec = *p->phGraphExec;
        graph = p->hGraph;
    }
    gi_graph_exec *r = calloc(1, sizeof *r);
    if (!r)
        return;
    read_graph(graph, r);
    if (cuptiGetGraphExecId(exec, &r->id) != CUPTI_SUCCESS)
        r->id = __atomic_fetch_add(&next_own_id, 1, __ATOMIC_RELAXED);
    pthread_mutex_lock(&graphs_lock);
    /* an update lists the new record under the same handle; the old one is
     * freed once no launch holds it */
    r->node = gi_registry_put(&graphs, exec, r);
    if (!r->node) { /* out of memory: the graph's launches say so */
        if (find_locked(exec))
            gi_registry_drop(&graphs, exec);
        free_exec(r);
    }
    pthread_mutex_unlock(&graphs_lock);
}

void gi_graph_exec_destroyed(const CUpti_CallbackData *cb)
{
    const cuGraphExecDestroy_params *p = cb->functionParams;
    if (!p)
        return;
    pthread_mutex_lock(&graphs_lock);
    gi_registry_drop(&graphs, p->hGraphExec); /* freed now, or when its launch ends */
    pthread_mutex_unlock(&graphs_lock);
}

/* Lines of the graphs file (collector_graph.h):
 *   graph,<id>,<kernel nodes>,profiled|not_profiled,<reason>   once per kind
 *   glaunch,<id>,<graph launch number>,0|1                     every launch
 *   node,<launch_id>,<id>,<graph launch number>,<node index>,<node id> */
static void graph_line(gi_graph_exec *r, int profiled, const char *why)
{
    int *said = profiled ? &r->said_profiled : &r->said_not;
    if (*said)
        return;
    *said = 1;
    char line[512];
    snprintf(line, sizeof line, "graph,%u,%zu,%s,%s\n", r->id, r->n_kernels,
             profiled ? "profiled" : "not_profiled", why ? why : "");
    gi_write_graph_text(line);
}

static void launch_line(uint32_t id, uint64_t seq, int profiled)
{
    char line[96];
    snprintf(line, sizeof line, "glaunch,%u,%llu,%d\n", id, (unsigned long long)seq, profiled);
    gi_write_graph_text(line);
}

void gi_graph_not_profiled(CUgraphExec exec, uint64_t seq, const char *why)
{
    pthread_mutex_lock(&graphs_lock);
    gi_graph_exec *r = exec ? find_locked(exec) : NULL;
    uint32_t id = r ? r->id : 0;
    if (r)
        graph_line(r, 0, why);
    pthread_mutex_unlock(&graphs_lock);
    if (!r) {
        char line[512];
        snprintf(line, sizeof line, "graph,0,0,not_profiled,%s\n", why);
        gi_write_graph_text(line);
    }
    launch_line(id, seq, 0);
}

/* Kernel nodes are profiled only on request.  Measured on an H100 (driver
 * 580.159.04, CUDA 13.0, 2026-11-25, tests/profile/stress_check.py and
 * graph_check.py): with the graph launch in its own user-replay window,
 * cuptiRangeProfilerStop fails with CUPTI_ERROR_UNKNOWN, and the next Stop
 * outside any graph fails the same way, so every later launch went
 * unprofiled (12 of the stress program's 32).  A profiler that loses the
 * rest of the run for a graph is worse than one that skips the graph and
 * says so. */
#define GRAPH_NODES_OFF_WHY                                                                   \
    "kernel nodes of graphs are not profiled by default: on this CUPTI the range profiler's " \
    "stop fails after a graph launch (error 999, H100, driver 580) and then for every later " \
    "launch; GPUQ_GRAPH_NODES=1 tries"

static int graph_nodes_wanted(void)
{
    const char *v = getenv(GI_ENV(GI_ENV_GRAPH_NODES));
    return v && v[0] == '1';
}

static int graph_launch_open(gi_device *dev, CUcontext ctx, CUgraphExec exec, uint64_t seq,
                             gi_graph_exec *r, gi_launch *L);

int gi_graph_launch_begin(gi_device *dev, CUcontext ctx, CUgraphExec exec, uint64_t seq,
                          gi_launch *L)
{
    /* A reference for this launch: a destroy on another thread while it runs
     * cannot free the record under it (gi_graph_launch_end gives it back). */
    pthread_mutex_lock(&graphs_lock);
    gi_reg_node *taken = exec ? gi_registry_take(&graphs, exec) : NULL;
    gi_graph_exec *r = taken ? taken->item : NULL;
    pthread_mutex_unlock(&graphs_lock);
    if (!r) {
        gi_graph_not_profiled(exec, seq, "instantiated where the collector did not see it");
        return 0;
    }
    int opened = graph_launch_open(dev, ctx, exec, seq, r, L);
    if (!opened)
        release(r);
    return opened;
}

/* gi_graph_launch_begin with the record held. */
static int graph_launch_open(gi_device *dev, CUcontext ctx, CUgraphExec exec, uint64_t seq,
                             gi_graph_exec *r, gi_launch *L)
{
    char why[256];
    why[0] = '\0';
    if (r->why[0])
        snprintf(why, sizeof why, "%s", r->why);
    else if (graph_refused[0])
        snprintf(why, sizeof why, "%s", graph_refused);
    else if (!graph_nodes_wanted())
        snprintf(why, sizeof why, "%s", GRAPH_NODES_OFF_WHY);
    else if (g.pass == GI_PASS_COUNTERS && dev->replay != CUPTI_UserReplay)
        snprintf(why, sizeof why, "the metrics need %zu passes: kernel replay of graph nodes is "
                 "not attempted", dev->passes);
    if (why[0]) {
        gi_graph_not_profiled(exec, seq, why);
        return 0;
    }
    if (r->n_kernels == 0)
        return 0;
    unsigned char *selected = calloc(r->n_kernels, 1);
    if (!selected)
        return 0;
    size_t n_selected = 0;
    pthread_mutex_lock(&g.lock);
    for (size_t i = 0; i < r->n_kernels; i++) {
        g.launches_seen++;
        gi_filter_verdict v = gi_filter_next(&g.filter, r->nodes[i].name);
        if (v == GI_FILTER_PROFILE)
            selected[i] = 1, n_selected++;
        else
            g.filtered_out++;
    }
    pthread_mutex_unlock(&g.lock);
    if (n_selected && g.pass == GI_PASS_SASS) {
        /* The instruction counts name the function, not the node. */
        for (size_t i = 0; i < r->n_kernels && n_selected; i++)
            for (size_t j = 0; j < i; j++)
                if (strcmp(r->nodes[i].mangled, r->nodes[j].mangled) == 0) {
                    free(selected);
                    gi_graph_not_profiled(exec, seq, "two of its kernel nodes run the same "
                                          "function, whose instruction counts cannot be told "
                                          "apart");
                    return 0;
                }
    }
    char refused[256] = "";
    int opened = n_selected && (g.pass == GI_PASS_SASS
                                    ? gi_sass_begin(dev, ctx)
                                    : gi_range_graph_begin(dev, ctx, r->n_kernels, refused,
                                                           sizeof refused));
    if (!opened && refused[0]) {
        snprintf(graph_refused, sizeof graph_refused, "%s", refused);
        gi_note("%s: kernel nodes of CUDA graphs are not profiled from now on", refused);
        free(selected);
        gi_graph_not_profiled(exec, seq, refused);
        return 0;
    }
    if (!opened) {
        free(selected);
        if (n_selected)
            launch_line(r->id, seq, 0);
        return 0;
    }
    L->graph = r;
    L->graph_seq = seq;
    L->graph_selected = selected;
    return 1;
}

/* The sass pass: one launch block per selected kernel node. */
static void sass_end(gi_device *dev, gi_launch *L, int launch_ok)
{
    gi_graph_exec *r = L->graph;
    const char **names = calloc(r->n_kernels, sizeof *names);
    uint64_t *ids = calloc(r->n_kernels, sizeof *ids);
    size_t n = 0;
    if (names && ids) {
        pthread_mutex_lock(&g.lock);
        for (size_t i = 0; i < r->n_kernels; i++)
            if (L->graph_selected[i]) {
                names[n] = r->nodes[i].mangled;
                ids[n++] = g.next_launch_id++;
                g.profiled++;
            }
        pthread_mutex_unlock(&g.lock);
        gi_sass_end_graph(dev, L->ctx, n, names, ids, launch_ok);
    }
    launch_line(r->id, L->graph_seq, launch_ok && names && ids);
    free(names);
    free(ids);
}

void gi_graph_launch_end(gi_device *dev, gi_launch *L, int launch_ok)
{
    gi_graph_exec *r = L->graph;
    if (g.pass == GI_PASS_SASS) {
        sass_end(dev, L, launch_ok);
        free(L->graph_selected);
        L->graph_selected = NULL;
        L->graph = NULL;
        release(r);
        return;
    }
    size_t k_n = r->n_kernels, m_n = dev->n_metrics;
    double *values = calloc(k_n * m_n + 1, sizeof *values);
    size_t ranges = 0, dropped = 0;
    char refused[256] = "";
    int ok = values && gi_range_graph_collect(dev, k_n, &ranges, &dropped, values, refused,
                                              sizeof refused);
    if (!ok && refused[0]) {
        snprintf(graph_refused, sizeof graph_refused, "%s", refused);
        gi_note("%s: kernel nodes of CUDA graphs are not profiled from now on", refused);
        pthread_mutex_lock(&graphs_lock);
        graph_line(r, 0, refused);
        pthread_mutex_unlock(&graphs_lock);
        launch_line(r->id, L->graph_seq, 0);
    } else if (!ok || !launch_ok) {
        launch_line(r->id, L->graph_seq, 0);
    } else if (ranges != k_n || dropped) {
        char why[200];
        snprintf(why, sizeof why, "CUPTI gave %zu auto ranges (%zu dropped) for its %zu kernel "
                 "nodes", ranges, dropped, k_n);
        pthread_mutex_lock(&graphs_lock);
        graph_line(r, 0, why);
        pthread_mutex_unlock(&graphs_lock);
        launch_line(r->id, L->graph_seq, 0);
    } else {
        pthread_mutex_lock(&graphs_lock);
        graph_line(r, 1, NULL);
        pthread_mutex_unlock(&graphs_lock);
        for (size_t i = 0; i < k_n; i++) {
            if (!L->graph_selected[i])
                continue;
            const gi_graph_node *nd = &r->nodes[i];
            gm_launch_counters k;
            gm_launch_counters_init(&k);
            if (gm_launch_counters_set_names(&k, nd->name, nd->mangled) != GM_OK) {
                gm_launch_counters_clear(&k);
                gi_stand_down(GI_ERROR_IO, "out of memory");
                break;
            }
            pthread_mutex_lock(&g.lock);
            k.launch_id = g.next_launch_id++;
            g.profiled++;
            g.graph_nodes_profiled++;
            pthread_mutex_unlock(&g.lock);
            k.device = dev->ordinal;
            memcpy(k.grid, nd->grid, sizeof k.grid);
            memcpy(k.block, nd->block, sizeof k.block);
            k.regs_per_thread = nd->regs;
            k.shared_bytes = nd->shared;
            for (size_t m = 0; m < m_n; m++)
                k.metric[dev->metric_ids[m]] = values[i * m_n + m];
            gi_write_row(dev, &k);
            char line[160];
            snprintf(line, sizeof line, "node,%llu,%u,%llu,%zu,%llu\n",
                     (unsigned long long)k.launch_id, r->id, (unsigned long long)L->graph_seq, i,
                     (unsigned long long)nd->node_id);
            gi_write_graph_text(line);
            gm_launch_counters_clear(&k);
        }
        pthread_mutex_lock(&g.lock);
        g.graph_profiled++;
        pthread_mutex_unlock(&g.lock);
        launch_line(r->id, L->graph_seq, 1);
    }
    free(values);
    free(L->graph_selected);
    L->graph_selected = NULL;
    L->graph = NULL;
    release(r);
}
