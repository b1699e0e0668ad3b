/* Who a TCP connection comes from, as far as the per-address limit on
 * connections without the token cares: IPv4 addresses one by one, and
 * IPv6 addresses by their /64 prefix, because a single host is routinely
 * given a whole /64 and could otherwise take a new address for every
 * connection. An IPv4 address written as IPv6 (::ffff:a.b.c.d, from a
 * dual-stack listener) is the IPv4 address. */
#ifndef CUZK_DAEMON_PEER_ADDRESS_H
#define CUZK_DAEMON_PEER_ADDRESS_H

#include <sys/socket.h>

typedef struct {
    unsigned char bytes[8]; /* IPv4: the four bytes, then zeros; IPv6: the first eight */
    int family;             /* AF_INET or AF_INET6 (after the mapping above); 0: none */
} peer_address;

/* *out <- the peer of sa (NULL or neither IPv4 nor IPv6, a unix socket
 * for one: family 0, an address no other equals). */
void peer_address_of(const struct sockaddr *sa, peer_address *out);

/* 1 when a and b count as the same peer; never for family 0. */
int peer_address_same(const peer_address *a, const peer_address *b);

#endif
