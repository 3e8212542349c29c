/* Unit tests of the HTML report's writer (src/core/report_html*.c) and
 * its escapers (gpuq/writer.h): no string of the program becomes markup or
 * ends the page's <script> elements, whatever it holds; the page is whole
 * (one data block, one script) and loads nothing from elsewhere.  The page
 * in a browser: tests/html/browser_check.sh. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/report_html.h"
#include "gpuq/metrics.h"
#include "papers/atomics/atomics_model.h"
#include "gpuq/report.h"
#include "core/writer.h"

#define TABLE GPUQ_SOURCE_DIR "/tests/data/tables/test_gpu.csv"
#define IMG "<img src=x onerror=alert(1)>"
#define END_SCRIPT "</script><script>alert(1)</script>"
#define LS "line\xe2\x80\xa8sep\xe2\x80\xa9par"


static char *capture(void (*fn)(FILE *, const char *), const char *s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_non_null(mem);
    fn(mem, s);
    fclose(mem);
    return text;
}

static void test_html_text_escapes_markup(void **state)
{
    (void)state;
    char *t = capture(gm_html_write_text, "<a href=\"x\" title='y'>&amp;</a>");
    assert_string_equal(t, "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;");
    free(t);
    t = capture(gm_html_write_text, NULL);
    assert_string_equal(t, "");
    free(t);
}

static void test_json_for_script_escapes_what_ends_it(void **state)
{
    (void)state;
    char *t = capture(gm_json_write_string_html, END_SCRIPT "<!--&" LS "\"\\\n");
    assert_string_equal(t, "\"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"
                           "\\u003c!--\\u0026line\\u2028sep\\u2029par\\\"\\\\\\n\"");
    free(t);
    /* the plain JSON writer is unchanged: '<' stays itself there */
    t = capture(gm_json_write_string, "<");
    assert_string_equal(t, "\"<\"");
    free(t);
    /* a lone lead byte at the end is not read past */
    t = capture(gm_json_write_string_html, "x\xe2");
    assert_string_equal(t, "\"x\xe2\"");
    free(t);
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void add_launch(gm_counters_set *set, uint64_t id, const char *name, double duration)
{
    gm_launch_counters k;
    gm_launch_counters_init(&k);
    assert_int_equal(gm_launch_counters_set_names(&k, name, NULL), GM_OK);
    k.launch_id = id;
    k.grid[0] = 2, k.grid[1] = k.grid[2] = 1;
    k.block[0] = 128, k.block[1] = k.block[2] = 1;
    k.metric[GM_ATOMICS_M_N_ATOM_SASS] = k.metric[GM_ATOMICS_M_N_ATOM] = k.metric[GM_ATOMICS_M_N_ALU] = 24;
    k.metric[GM_ATOMICS_M_N_CAS] = 0;
    k.metric[GM_ATOMICS_M_O_WAVEFRONTS] = 48;
    k.metric[GM_ATOMICS_M_CYCLES_SUM] = 2000;
    k.metric[GM_ATOMICS_M_CYCLES_AVG] = 1000;
    k.metric[GM_ATOMICS_M_CYCLES_MIN] = 900;
    k.metric[GM_ATOMICS_M_CYCLES_MAX] = 1100;
    k.metric[GM_ATOMICS_M_OCCUPANCY_PCT] = 50;
    k.metric[GM_ATOMICS_M_DURATION_NS] = duration;
    assert_int_equal(gm_counters_set_push(set, &k), GM_OK);
}

static char *render_page(int summary)
{
    gm_counters_set set;
    gm_counters_set_init(&set);
    snprintf(set.meta.device_name, sizeof set.meta.device_name, "gpuq Test GPU <b>");
    snprintf(set.meta.command, sizeof set.meta.command, "./app --name '" END_SCRIPT "'");
    snprintf(set.meta.source, sizeof set.meta.source, "hand-written, 2026-12-01T21:00:00Z");
    set.meta.sm_count = 2;
    set.meta.max_warps_per_sm = 4;
    add_launch(&set, 0, IMG, 300);
    add_launch(&set, 1, END_SCRIPT, 200);
    add_launch(&set, 2, IMG, 100);
    add_launch(&set, 3, LS " & \"quotes\" 'too'", 50);
    gm_atomics_table *table = NULL;
    gm_error err = {{0}};
    assert_int_equal(gm_atomics_table_load(TABLE, &table, &err), GM_OK);
    gm_machine m;
    memset(&m, 0, sizeof m);
    assert_int_equal(gm_machine_adopt(&m, "atomics", TABLE, NULL, table, NULL, &err), GM_OK);
    const char *const sections[] = {"atomics", NULL};
    gm_report_options opt = {.summary = summary, .sections = sections};
    gm_report_file file = {.set = &set, .path = "x.csv"};
    gm_report rep;
    if (gm_report_make(&rep, &file, 1, &m, &opt, &err) != GM_OK)
        fail_msg("%s", err.msg);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    assert_int_equal(gm_report_write(mem, &rep, GM_FORMAT_HTML, &err), GM_OK);
    fclose(mem);
    gm_report_free(&rep);
    gm_atomics_table_free(table);
    gm_counters_set_clear(&set);
    return text;
}

static void test_page_never_turns_names_into_markup(void **state)
{
    (void)state;
    char *page = render_page(0);
    /* the page's own two scripts and nothing else */
    assert_int_equal(count(page, "<script"), 2);
    assert_int_equal(count(page, "</script"), 2);
    assert_int_equal(count(page, "<img"), 0);
    assert_int_equal(count(page, "<b>"), 0);
    assert_int_equal(count(page, "\xe2\x80\xa8"), 0);
    /* the names are in the data, escaped */
    assert_non_null(strstr(page, "\"\\u003cimg src=x onerror=alert(1)\\u003e\""));
    assert_non_null(strstr(page, "\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"));
    assert_non_null(strstr(page, "line\\u2028sep\\u2029par \\u0026 \\\"quotes\\\" 'too'"));
    /* the header's strings as text */
    assert_non_null(strstr(page, "<dd class=\"mono\">./app --name &#39;&lt;/script&gt;&lt;script&gt;"
                                 "alert(1)&lt;/script&gt;&#39;</dd>"));
    assert_non_null(strstr(page, "gpuq Test GPU &lt;b&gt; (cc 0.0, 2 SMs, 4 warps/SM)"));
    assert_non_null(strstr(page, "<dt>date</dt><dd>2026-12-01T21:00:00Z</dd>"));
    free(page);
}

/* One file, nothing from elsewhere: no URL a browser would fetch. */
static void test_page_is_self_contained(void **state)
{
    (void)state;
    char *page = render_page(0);
    assert_int_equal(strncmp(page, "<!DOCTYPE html>", 15), 0);
    assert_non_null(strstr(page, "default-src 'none'"));
    /* the only "src=" are the escaped kernel name's, in the data */
    assert_int_equal(count(page, "src="), count(page, "\\u003cimg src="));
    assert_true(count(page, "src=") > 0);
    assert_int_equal(count(page, "href="), 0);
    assert_int_equal(count(page, "@import"), 0);
    assert_int_equal(count(page, "url("), 0);
    assert_int_equal(count(page, "http://"), count(page, "http://www.w3.org/2000/svg"));
    assert_int_equal(count(page, "https://"), 0);
    assert_non_null(strstr(page, "{\"format\":\"gpuq report html v1\""));
    /* the kernels ranked: the image name's two launches (400 ns) first */
    char *first = strstr(page, "{\"rank\":1,");
    char *second = strstr(page, "{\"rank\":2,");
    assert_non_null(first);
    assert_non_null(second);
    assert_non_null(strstr(first, "\"dm\":\"\\u003cimg src=x onerror=alert(1)\\u003e\""));
    assert_true(strstr(first, "\"n\":2,\"tn\":2,\"t\":400,") < second);
    /* per launch: kernel rows and durations */
    assert_non_null(strstr(page, "\"launches\":{\"id\":[0,1,2,3],"));
    assert_non_null(strstr(page, "\"t\":[300,200,100,50]"));
    assert_non_null(strstr(page, "\"incomplete\":false}"));
    free(page);
    /* --summary: the kernels only */
    page = render_page(1);
    assert_non_null(strstr(page, "\"summary\":true"));
    assert_null(strstr(page, "\"launches\":{"));
    free(page);
}

static void test_page_parts_hold_no_element_end(void **state)
{
    (void)state;
    assert_null(strstr(report_html_js, "</script"));
    assert_null(strstr(report_html_js, "<!--"));
    assert_null(strstr(report_html_css, "</style"));
    assert_true(strlen(report_html_js) > 1000 && strlen(report_html_css) > 500);
    /* what the browser test reads */
    assert_non_null(strstr(report_html_js, "data-gpuq-ready"));
    assert_non_null(strstr(report_html_js, "data-gpuq-error"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_html_text_escapes_markup),
        cmocka_unit_test(test_json_for_script_escapes_what_ends_it),
        cmocka_unit_test(test_page_never_turns_names_into_markup),
        cmocka_unit_test(test_page_is_self_contained),
        cmocka_unit_test(test_page_parts_hold_no_element_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
