/* paths.c: the script and library search path of ndlua. */
#include "paths.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lauxlib.h>

struct paths {
    char **dirs;
    const char **origins; /* why each directory is on the list */
    size_t count, capacity;
};

static char *dup_string(const char *s, size_t n)
{
    char *copy = malloc(n + 1);
    if (copy != NULL) {
        memcpy(copy, s, n);
        copy[n] = '\0';
    }
    return copy;
}

static char *join_path(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *path = malloc(a + b + 2);
    if (path != NULL) {
        memcpy(path, dir, a);
        path[a] = '/';
        memcpy(path + a + 1, name, b + 1);
    }
    return path;
}

static int is_regular_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int add_dir(paths_t *p, const char *dir, size_t n, const char *origin)
{
    if (n == 0)
        return 0;
    if (p->count == p->capacity) {
        size_t cap = p->capacity ? 2 * p->capacity : 8;
        char **dirs = realloc(p->dirs, cap * sizeof *dirs);
        if (dirs == NULL)
            return -1;
        p->dirs = dirs;
        const char **origins = realloc(p->origins, cap * sizeof *origins);
        if (origins == NULL)
            return -1;
        p->origins = origins;
        p->capacity = cap;
    }
    char *copy = dup_string(dir, n);
    if (copy == NULL)
        return -1;
    p->dirs[p->count] = copy;
    p->origins[p->count] = origin;
    p->count++;
    return 0;
}

static int add_env_dirs(paths_t *p)
{
    const char *env = getenv("NDLUA_PATH");
    if (env == NULL)
        return 0;
    while (*env) {
        const char *colon = strchr(env, ':');
        size_t n = colon ? (size_t)(colon - env) : strlen(env);
        if (add_dir(p, env, n, "NDLUA_PATH") != 0)
            return -1;
        env += n;
        if (*env == ':')
            env++;
    }
    return 0;
}

/* The directory holding the running executable, newly allocated. */
static char *executable_dir(const char *argv0)
{
    char *exe = realpath("/proc/self/exe", NULL);
    if (exe == NULL && argv0 != NULL && strchr(argv0, '/') != NULL)
        exe = realpath(argv0, NULL);
    if (exe == NULL)
        return NULL;
    char *slash = strrchr(exe, '/');
    if (slash != NULL)
        *(slash == exe ? slash + 1 : slash) = '\0';
    return exe;
}

static int add_build_dirs(paths_t *p, const char *argv0)
{
    char *bin = executable_dir(argv0);
    if (bin == NULL)
        return 0;
    int rc = 0;
    char *share = join_path(bin, "../share/ndlua");
    char *tree = join_path(bin, "lua");
    if (share == NULL || tree == NULL) {
        rc = -1;
    } else {
        char *resolved = realpath(share, NULL);
        if (resolved != NULL && is_directory(resolved))
            rc = add_dir(p, resolved, strlen(resolved), "installed share directory");
        free(resolved);
        char *init = join_path(tree, "nd/init.lua");
        if (rc == 0 && init != NULL && is_regular_file(init))
            rc = add_dir(p, tree, strlen(tree), "source tree");
        else if (init == NULL)
            rc = -1;
        free(init);
    }
    free(share);
    free(tree);
    free(bin);
    return rc;
}

paths_t *paths_new(const char *argv0)
{
    paths_t *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    if (add_env_dirs(p) != 0 || add_build_dirs(p, argv0) != 0) {
        paths_free(p);
        return NULL;
    }
    return p;
}

void paths_free(paths_t *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->count; i++)
        free(p->dirs[i]);
    free(p->dirs);
    free(p->origins);
    free(p);
}

static int has_lua_suffix(const char *name)
{
    size_t n = strlen(name);
    return n >= 4 && strcmp(name + n - 4, ".lua") == 0;
}

char *paths_find_script(const paths_t *p, const char *name)
{
    if (is_regular_file(name))
        return dup_string(name, strlen(name));
    if (strchr(name, '/') != NULL)
        return NULL;
    for (size_t i = 0; i < p->count; i++) {
        char *path = join_path(p->dirs[i], name);
        if (path == NULL)
            return NULL;
        if (is_regular_file(path))
            return path;
        free(path);
        if (has_lua_suffix(name))
            continue;
        size_t n = strlen(name);
        char *with_suffix = malloc(n + 5);
        if (with_suffix == NULL)
            return NULL;
        memcpy(with_suffix, name, n);
        memcpy(with_suffix + n, ".lua", 5);
        path = join_path(p->dirs[i], with_suffix);
        free(with_suffix);
        if (path == NULL)
            return NULL;
        if (is_regular_file(path))
            return path;
        free(path);
    }
    return NULL;
}

void paths_print(FILE *out, const paths_t *p)
{
    if (p->count == 0)
        fprintf(out, "  (no directory: set NDLUA_PATH)\n");
    for (size_t i = 0; i < p->count; i++)
        fprintf(out, "  %s  (%s)\n", p->dirs[i], p->origins[i]);
}

/* The first sentence of a script's opening comment, after its "NAME: ":
 * the comment's lines joined until a full stop or a colon outside brackets
 * ends it. Newly allocated (free it); NULL when the file opens with none. */
static char *script_summary(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return NULL;
    char *line = NULL, *text = NULL;
    size_t cap = 0, len = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0 && strncmp(line, "--", 2) == 0 && line[2] != '-') {
        const char *body = line + 2;
        while (*body == ' ')
            body++;
        size_t blen = strcspn(body, "\r\n");
        if (blen == 0)
            break;
        char *grown = realloc(text, len + blen + 2);
        if (grown == NULL)
            break;
        text = grown;
        if (len > 0)
            text[len++] = ' ';
        memcpy(text + len, body, blen);
        len += blen;
        text[len] = '\0';
        if (body[blen - 1] == '.')
            break;
    }
    free(line);
    fclose(f);
    if (text == NULL)
        return NULL;
    char *start = strstr(text, ": ");
    start = start != NULL && (size_t)(start - text) < 40 ? start + 2 : text;
    int depth = 0;
    for (char *c = start; *c != '\0'; c++) {
        depth += *c == '(' ? 1 : *c == ')' ? -1 : 0;
        if (depth == 0 && (*c == '.' || *c == ':') && (c[1] == ' ' || c[1] == '\0')) {
            *c = '\0';
            break;
        }
    }
    memmove(text, start, strlen(start) + 1);
    return text;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether an earlier directory of the path holds a script of this name. */
static int shadowed(const paths_t *p, size_t before, const char *name)
{
    for (size_t i = 0; i < before; i++) {
        size_t n = strlen(p->dirs[i]) + strlen(name) + 2;
        char *path = malloc(n);
        if (path == NULL)
            return 0;
        snprintf(path, n, "%s/%s", p->dirs[i], name);
        struct stat st;
        int found = stat(path, &st) == 0 && S_ISREG(st.st_mode);
        free(path);
        if (found)
            return 1;
    }
    return 0;
}

/* The scripts of one directory, by name, with their summaries. */
static void print_dir_scripts(FILE *out, const paths_t *p, size_t i)
{
    DIR *dir = opendir(p->dirs[i]);
    if (dir == NULL)
        return;
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || e->d_name[0] == '.' || strcmp(e->d_name + n - 4, ".lua") != 0 || shadowed(p, i, e->d_name))
            continue;
        if (count == cap) {
            size_t want = cap ? cap * 2 : 8;
            char **grown = realloc(names, want * sizeof *names);
            if (grown == NULL)
                break;
            names = grown, cap = want;
        }
        names[count] = dup_string(e->d_name, n);
        if (names[count] != NULL)
            count++;
    }
    closedir(dir);
    if (count > 0)
        qsort(names, count, sizeof *names, compare_names);
    for (size_t k = 0; k < count; k++) {
        size_t n = strlen(p->dirs[i]) + strlen(names[k]) + 2;
        char *path = malloc(n);
        char *summary = NULL;
        if (path != NULL) {
            snprintf(path, n, "%s/%s", p->dirs[i], names[k]);
            summary = script_summary(path);
        }
        fprintf(out, "  %-12s %s\n", names[k], summary != NULL ? summary : "");
        free(summary);
        free(path);
        free(names[k]);
    }
    free(names);
}

void paths_print_scripts(FILE *out, const paths_t *p)
{
    for (size_t i = 0; i < p->count; i++)
        print_dir_scripts(out, p, i);
}

void paths_report_not_found(FILE *out, const paths_t *p, const char *name)
{
    fprintf(out, "ndlua: cannot find script '%s'; tried:\n", name);
    fprintf(out, "  %s  (as a path)\n", name);
    if (strchr(name, '/') == NULL) {
        for (size_t i = 0; i < p->count; i++) {
            fprintf(out, "  %s/%s  (%s)\n", p->dirs[i], name, p->origins[i]);
            if (!has_lua_suffix(name))
                fprintf(out, "  %s/%s.lua  (%s)\n", p->dirs[i], name, p->origins[i]);
        }
    }
    fprintf(out, "Give a path to the script, or add its directory to NDLUA_PATH.\n");
}

int paths_set_package_path(lua_State *L, const paths_t *p)
{
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (size_t i = 0; i < p->count; i++) {
        luaL_addstring(&b, p->dirs[i]);
        luaL_addstring(&b, "/?.lua;");
        luaL_addstring(&b, p->dirs[i]);
        luaL_addstring(&b, "/?/init.lua;");
    }
    luaL_pushresult(&b);                 /* prefix */
    lua_getglobal(L, "package");         /* prefix package */
    lua_getfield(L, -1, "path");         /* prefix package path */
    lua_pushvalue(L, -3);                /* prefix package path prefix */
    lua_insert(L, -2);                   /* prefix package prefix path */
    lua_concat(L, 2);                    /* prefix package newpath */
    lua_setfield(L, -2, "path");
    lua_pop(L, 2);
    return 0;
}
