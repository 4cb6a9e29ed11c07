/* include/infiniband/arch.h: hand-written (include/hand/infiniband/arch.h), copied by tools/gen-headers.
 * Do not edit: edit rdma-abi or include/hand/ and run `cargo run -p gen-headers`. */
/*
 * <infiniband/arch.h>: a leftover of early libibverbs, kept so that old
 * code still builds. It offers only 64-bit byte-order helpers (htonll,
 * ntohll) on top of glibc's <endian.h>; memory barriers are not provided
 * any more. New code should call htobe64()/be64toh() itself.
 */
#ifndef INFINIBAND_ARCH_H
#define INFINIBAND_ARCH_H

#include <stdint.h>
#include <endian.h>

#warning "This header is obsolete."

/*
 * Skipped when the application already has its own ntohll. Otherwise any
 * htonll of the application is dropped in favour of ours, and both names
 * are also defined as macros naming themselves, so "#ifdef ntohll" tells
 * that they exist.
 */
#ifndef ntohll
#undef htonll
#undef ntohll
static inline __attribute__((deprecated)) uint64_t htonll(uint64_t host64)
{
	return htobe64(host64);
}
static inline __attribute__((deprecated)) uint64_t ntohll(uint64_t net64)
{
	return be64toh(net64);
}
#define htonll htonll
#define ntohll ntohll
#endif

#endif /* INFINIBAND_ARCH_H */
