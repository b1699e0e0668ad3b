#include "daemon/token.h"

#include <ctype.h>
#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/err.h"
#include "util/file.h"

enum { TOKEN_MAX_BYTES = 4096 };

int token_load(const char *path, char **token, cuzk_error *err)
{
    struct stat st;
    cuzk_error why = {0};
    FILE *f = cuzk_fopen_regular(path, &st, &why);
    if (!f)
        return cuzk_fail(err, why.code, "cannot read the token: %s", why.msg);
    /* as ssh with keys and PostgreSQL with its password file: a token
     * others can read is no secret */
    if (st.st_mode & 077) {
        fclose(f);
        return cuzk_fail(err, CUZK_ERR_ARG, "%s: the token file is readable by its group or by others (mode %04o): "
                         "chmod 600 it", path, (unsigned)(st.st_mode & 07777));
    }
    char buf[TOKEN_MAX_BYTES + 2];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    if (n > TOKEN_MAX_BYTES)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: a token is at most %d bytes", path, TOKEN_MAX_BYTES);
    buf[n] = 0;
    char *start = buf, *end = buf + n;
    while (*start && isspace((unsigned char)*start))
        start++;
    while (end > start && isspace((unsigned char)end[-1]))
        *--end = 0;
    if (!*start)
        return cuzk_fail(err, CUZK_ERR_FORMAT, "%s: the token is empty", path);
    if (!(*token = strdup(start)))
        return cuzk_fail(err, CUZK_ERR_NOMEM, "out of memory");
    return CUZK_OK;
}

int token_authorizes(const char *expected, const char *authorization)
{
    static const char scheme[] = "Bearer ";
    if (!expected || !authorization || strncasecmp(authorization, scheme, sizeof scheme - 1))
        return 0;
    const char *given = authorization + sizeof scheme - 1;
    unsigned char want[SHA256_DIGEST_LENGTH], got[SHA256_DIGEST_LENGTH];
    SHA256((const unsigned char *)expected, strlen(expected), want);
    SHA256((const unsigned char *)given, strlen(given), got);
    return CRYPTO_memcmp(want, got, sizeof want) == 0;
}
