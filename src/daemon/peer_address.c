#include "daemon/peer_address.h"

#include <netinet/in.h>
#include <string.h>

void peer_address_of(const struct sockaddr *sa, peer_address *out)
{
    memset(out, 0, sizeof *out);
    if (sa && sa->sa_family == AF_INET) {
        memcpy(out->bytes, &((const struct sockaddr_in *)sa)->sin_addr, 4);
        out->family = AF_INET;
    } else if (sa && sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a)) {
            memcpy(out->bytes, a->s6_addr + 12, 4);
            out->family = AF_INET;
        } else {
            memcpy(out->bytes, a->s6_addr, 8);
            out->family = AF_INET6;
        }
    }
}

int peer_address_same(const peer_address *a, const peer_address *b)
{
    return a->family && a->family == b->family && !memcmp(a->bytes, b->bytes, sizeof a->bytes);
}
