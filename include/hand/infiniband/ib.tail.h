/*
 * Short names for the views of an ib_addr (a 128-bit GID): a->sib_addr32[3]
 * is a->ib_u.uib_addr32[3]; sib_raw is the byte view, sib_subnet_prefix and
 * sib_interface_id the two (big-endian) 64-bit halves.
 */
#define sib_addr8 ib_u.uib_addr8
#define sib_addr16 ib_u.uib_addr16
#define sib_addr32 ib_u.uib_addr32
#define sib_addr64 ib_u.uib_addr64
#define sib_raw ib_u.uib_addr8
#define sib_subnet_prefix ib_u.uib_addr64[0]
#define sib_interface_id ib_u.uib_addr64[1]

/* Non-zero when every bit of the address is clear (the wildcard). */
static inline int ib_addr_any(const struct ib_addr *a)
{
	return (a->sib_addr64[0] | a->sib_addr64[1]) == 0;
}

/* Non-zero for the loopback address ::1 (only the last bit set). */
static inline int ib_addr_loopback(const struct ib_addr *a)
{
	return (a->sib_addr32[0] | a->sib_addr32[1] | a->sib_addr32[2] |
		(a->sib_addr32[3] ^ htobe32(1))) == 0;
}

/* Stores four big-endian words, most significant first. */
static inline void ib_addr_set(struct ib_addr *addr, __be32 w1, __be32 w2,
			       __be32 w3, __be32 w4)
{
	addr->sib_addr32[0] = w1;
	addr->sib_addr32[1] = w2;
	addr->sib_addr32[2] = w3;
	addr->sib_addr32[3] = w4;
}

/* memcmp's order on the 16 bytes: 0 when equal. */
static inline int ib_addr_cmp(const struct ib_addr *a1, const struct ib_addr *a2)
{
	return memcmp(a1, a2, sizeof(struct ib_addr));
}
