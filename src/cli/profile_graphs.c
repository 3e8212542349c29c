/* gpuq profile: what happened to the program's CUDA graph launches, from
 * the collector's graphs file (collector_graph.c):
 *   graph,<id>,<kernel nodes>,profiled|not_profiled,<reason>
 *   glaunch,<id>,<graph launch number>,0|1
 *   node,<launch_id>,<id>,<graph launch number>,<node index>,<node id>
 * One line per graph on stderr, and the node attribution of the counters
 * rows kept next to the counters file (<counters>.graphs.csv:
 * launch_id,graph,graph_launch,node_index,node_id). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile.h"

typedef struct graph_sum {
    unsigned id;
    size_t kernels;
    long long launches, profiled;
    char why[256];
} graph_sum;

static graph_sum *find_or_add(graph_sum **list, size_t *n, unsigned id)
{
    for (size_t i = 0; i < *n; i++)
        if ((*list)[i].id == id)
            return &(*list)[i];
    graph_sum *grown = realloc(*list, (*n + 1) * sizeof *grown);
    if (!grown)
        return NULL;
    *list = grown;
    graph_sum *g = &grown[(*n)++];
    memset(g, 0, sizeof *g);
    g->id = id;
    return g;
}

void prof_graph_summary(const char *graphs_path, const char *counters_path)
{
    FILE *in = fopen(graphs_path, "r");
    if (!in)
        return;
    char out_path[PATH_MAX + 32];
    snprintf(out_path, sizeof out_path, "%s.graphs.csv", counters_path);
    char tmp[PATH_MAX + 64];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", out_path, (long)getpid());
    FILE *out = NULL;
    size_t nodes = 0, n = 0;
    graph_sum *list = NULL;
    char line[1024];
    while (fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = '\0';
        unsigned id = 0, kernels = 0;
        unsigned long long seq = 0, launch = 0, index = 0, node = 0;
        int prof = 0, used = 0;
        char kind[16] = "";
        if (sscanf(line, "graph,%u,%u,%15[a-z_],%n", &id, &kernels, kind, &used) == 3) {
            graph_sum *g = find_or_add(&list, &n, id);
            if (!g)
                break;
            g->kernels = kernels;
            if (strcmp(kind, "not_profiled") == 0 && !g->why[0])
                snprintf(g->why, sizeof g->why, "%s", line + used);
        } else if (sscanf(line, "glaunch,%u,%llu,%d", &id, &seq, &prof) == 3) {
            graph_sum *g = find_or_add(&list, &n, id);
            if (!g)
                break;
            g->launches++;
            g->profiled += prof == 1;
        } else if (sscanf(line, "node,%llu,%u,%llu,%llu,%llu", &launch, &id, &seq, &index,
                          &node) == 5) {
            if (!out && (out = fopen(tmp, "w")) != NULL)
                fprintf(out, "launch_id,graph,graph_launch,node_index,node_id\n");
            if (out)
                fprintf(out, "%llu,%u,%llu,%llu,%llu\n", launch, id, seq, index, node);
            nodes++;
        }
    }
    fclose(in);
    if (out) {
        if (fclose(out) == 0 && rename(tmp, out_path) == 0)
            cli_error(CMD, "%zu kernel-node launch%s of CUDA graphs profiled; which graph launch "
                      "and node each row is: %s", nodes, nodes == 1 ? "" : "es", out_path);
        else
            unlink(tmp);
    }
    for (size_t i = 0; i < n; i++) {
        const graph_sum *g = &list[i];
        long long missed = g->launches - g->profiled;
        if (g->profiled)
            cli_error(CMD, "CUDA graph %u (%zu kernel nodes): %lld of %lld launch%s profiled "
                      "node by node", g->id, g->kernels, g->profiled, g->launches,
                      g->launches == 1 ? "" : "es");
        if (missed > 0)
            cli_error(CMD, "CUDA graph %u (%zu kernel nodes): %lld launch%s not profiled: %s",
                      g->id, g->kernels, missed, missed == 1 ? "" : "es",
                      g->why[0] ? g->why : "no kernel node passed the filter");
    }
    free(list);
}
