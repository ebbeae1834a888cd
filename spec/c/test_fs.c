/* test_fs.c: nd_list_dir and nd_mkdir_p on a temporary directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "bridge/fs.h"

static char root[64];

/* ROOT/rel, in a buffer of the caller's. */
static const char *at(char *buf, size_t n, const char *rel)
{
    snprintf(buf, n, "%s/%s", root, rel);
    return buf;
}

static void touch(const char *rel)
{
    char p[256];
    int fd = open(at(p, sizeof p, rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0)
        close(fd);
}

static int is_dir(const char *rel)
{
    char p[256];
    struct stat st;
    return stat(at(p, sizeof p, rel), &st) == 0 && S_ISDIR(st.st_mode);
}

static void test_list_dir(void)
{
    char p[256];
    nd_dir_names names;
    CHECK_INT(nd_list_dir(root, &names), 0, "an empty directory lists");
    CHECK_INT(names.count, 0, "an empty directory has no entries (no . or ..)");
    nd_dir_names_free(&names);

    /* Bytewise order: upper case before lower case, "a.lua" before "a_b",
     * "b10" before "b9"; a hidden file and a subdirectory are entries. */
    const char *files[] = {"zeta.lua", "b9", "b10", "a_b", "a.lua", "Upper", ".hidden"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        touch(files[i]);
    mkdir(at(p, sizeof p, "sub"), 0777);
    const char *want[] = {".hidden", "Upper", "a.lua", "a_b", "b10", "b9", "sub", "zeta.lua"};
    CHECK_INT(nd_list_dir(root, &names), 0, "the directory lists");
    CHECK_INT(names.count, 8, "every entry but . and ..");
    for (size_t i = 0; i < 8 && i < names.count; i++)
        CHECK_STR(names.names[i], want[i], "entries sorted bytewise");
    nd_dir_names_free(&names);
    CHECK(names.names == NULL && names.count == 0, "freeing empties the list");

    errno = 0;
    CHECK_INT(nd_list_dir(at(p, sizeof p, "missing"), &names), -1, "a missing directory fails");
    CHECK_INT(errno, ENOENT, "with ENOENT");
    CHECK(names.names == NULL && names.count == 0, "and an empty list");
    errno = 0;
    CHECK_INT(nd_list_dir(at(p, sizeof p, "b9"), &names), -1, "a file is no directory");
    CHECK_INT(errno, ENOTDIR, "with ENOTDIR");
}

static void test_mkdir_p(void)
{
    char p[256];
    CHECK_INT(nd_mkdir_p(at(p, sizeof p, "new/deeper/deepest")), 0, "a nested path is made");
    CHECK(is_dir("new") && is_dir("new/deeper") && is_dir("new/deeper/deepest"), "with its parents");
    CHECK_INT(nd_mkdir_p(at(p, sizeof p, "new/deeper/deepest")), 0, "an existing directory is success");
    CHECK_INT(nd_mkdir_p(at(p, sizeof p, "two//slashes/")), 0, "doubled and trailing slashes");
    CHECK(is_dir("two/slashes"), "make the named directory");

    mode_t old = umask(077);
    CHECK_INT(nd_mkdir_p(at(p, sizeof p, "masked")), 0, "made under umask 077");
    umask(old);
    struct stat st;
    CHECK(stat(p, &st) == 0 && (st.st_mode & 0777) == 0700, "mode 0777 less the umask");

    errno = 0;
    CHECK_INT(nd_mkdir_p(at(p, sizeof p, "b9")), -1, "a file in the way fails");
    CHECK_INT(errno, EEXIST, "with EEXIST");
    errno = 0;
    CHECK_INT(nd_mkdir_p(at(p, sizeof p, "b9/below")), -1, "a file as a parent fails");
    CHECK_INT(errno, ENOTDIR, "with ENOTDIR");
    errno = 0;
    CHECK_INT(nd_mkdir_p(""), -1, "the empty path fails");
    CHECK_INT(errno, ENOENT, "with ENOENT");
}

/* Removes the test tree (known names only: nothing recursive). */
static void cleanup(void)
{
    char p[256];
    const char *files[] = {"zeta.lua", "b9", "b10", "a_b", "a.lua", "Upper", ".hidden"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++)
        unlink(at(p, sizeof p, files[i]));
    const char *dirs[] = {"sub", "new/deeper/deepest", "new/deeper", "new", "two/slashes", "two", "masked"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
        rmdir(at(p, sizeof p, dirs[i]));
    rmdir(root);
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/ndlua-fs-XXXXXX", tmp != NULL && strlen(tmp) < 40 ? tmp : "/tmp");
    if (mkdtemp(root) == NULL) {
        printf("not ok 1 - mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    test_list_dir();
    test_mkdir_p();
    cleanup();
    return check_done();
}
