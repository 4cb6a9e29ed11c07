/*
 * Hand-written opening of <infiniband/verbs.h>, spliced by tools/gen-headers
 * after the #include lines and before the generated declarations.
 *
 * __attribute_const: rdma-core's verbs.h defines it for its rate conversion
 * prototypes (ibv_rate_to_mult, mult_to_ibv_rate, ibv_rate_to_mbps,
 * mbps_to_ibv_rate: the result depends on the argument only) as GCC's
 * "const" attribute, or as nothing for compilers without it, and removes
 * it at the end of the header. Ours does the same (verbs.tail.h removes
 * it), so generated prototypes can carry it and an application's own
 * definition of the name fares as with rdma-core's header.
 */
#if __GNUC__ >= 3
#define __attribute_const __attribute__((const))
#else
#define __attribute_const
#endif
