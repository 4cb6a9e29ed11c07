//! What goes where: the headers we ship, which rdma-abi modules feed them,
//! and the few facts the Rust source cannot carry.

/// One header of include/.
pub struct Header {
    /// Path under include/, as C includes it.
    pub path: &'static str,
    /// `None`: copied from include/hand/<path>. `Some`: generated.
    pub gen: Option<Gen>,
}

pub struct Gen {
    pub guard: &'static str,
    /// What the header is for, the first line of its banner.
    pub about: &'static str,
    /// The #include lines, in order.
    pub includes: &'static [&'static str],
}

const fn gen(
    path: &'static str,
    guard: &'static str,
    about: &'static str,
    includes: &'static [&'static str],
) -> Header {
    Header {
        path,
        gen: Some(Gen {
            guard,
            about,
            includes,
        }),
    }
}

const fn hand(path: &'static str) -> Header {
    Header { path, gen: None }
}

pub const HEADERS: &[Header] = &[
    hand("infiniband/arch.h"),
    hand("infiniband/verbs_api.h"),
    hand("infiniband/sa-kern-abi.h"),
    gen(
        "infiniband/ib_user_ioctl_verbs.h",
        // The kernel's own guard, as upstream's copy keeps it: whichever of
        // the two a program includes first is the one it gets.
        "IB_USER_IOCTL_VERBS_H",
        "The kernel's uverbs ioctl uAPI as rdma-core 65 carries it (what verbs_api.h maps to IBV_ names).",
        &["<linux/types.h>", "<rdma/ib_user_verbs.h>"],
    ),
    gen(
        "infiniband/verbs.h",
        "INFINIBAND_VERBS_H",
        "The verbs API of libibverbs.so.1 (rdma-core 65's).",
        &[
            "<stdint.h>",
            "<pthread.h>",
            "<stddef.h>",
            "<errno.h>",
            "<string.h>",
            "<linux/types.h>",
            "<linux/if_ether.h>",
            "<sys/types.h>",
            "<infiniband/verbs_api.h>",
        ],
    ),
    gen(
        "infiniband/sa.h",
        "INFINIBAND_SA_H",
        "Subnet administration records (path and multicast member records).",
        &["<infiniband/verbs.h>", "<linux/types.h>"],
    ),
    gen(
        "infiniband/tm_types.h",
        "_TM_TYPES_H",
        "The headers of tag-matching messages on the wire.",
        &["<linux/types.h>", "<stdint.h>"],
    ),
    gen(
        "infiniband/ib.h",
        "_RDMA_IB_H",
        "InfiniBand addresses for sockets: AF_IB and struct sockaddr_ib.",
        &["<linux/types.h>", "<stdint.h>", "<endian.h>", "<string.h>"],
    ),
    gen(
        "rdma/rdma_cma.h",
        "RDMA_CMA_H",
        "The connection manager API of librdmacm.so.1 (rdma-core 65's).",
        &[
            "<netinet/in.h>",
            "<sys/socket.h>",
            "<infiniband/verbs.h>",
            "<infiniband/sa.h>",
        ],
    ),
    gen(
        "rdma/rdma_verbs.h",
        "RDMA_VERBS_H",
        "Verbs helpers for rdma_cm identifiers.",
        &[
            "<assert.h>",
            "<infiniband/verbs.h>",
            "<rdma/rdma_cma.h>",
            "<errno.h>",
        ],
    ),
    gen(
        "infiniband/opcode.h",
        "INFINIBAND_OPCODE_H",
        "The opcodes of the InfiniBand base transport header (BTH).",
        &[],
    ),
    gen(
        "rdma/rdma_cma_abi.h",
        "RDMA_CMA_ABI_H",
        "librdmacm's old spelling of the rdma_cm device commands (ucma_abi_*).",
        &[
            "<rdma/ib_user_sa.h>",
            "<rdma/ib_user_verbs.h>",
            "<infiniband/sa.h>",
            "<netinet/in.h>",
        ],
    ),
    gen(
        "rdma/rsocket.h",
        "RSOCKET_H",
        "rsockets: a sockets API over RDMA.",
        &[
            "<infiniband/verbs.h>",
            "<rdma/rdma_cma.h>",
            "<sys/socket.h>",
            "<errno.h>",
            "<poll.h>",
            "<sys/select.h>",
            "<sys/mman.h>",
            "<sys/epoll.h>",
        ],
    ),
];

/// The rdma-abi modules read, in order (a later definition of the same C
/// name replaces an earlier one: rdma-core 65's types over 44's), each with
/// the header its items go to when no banner says otherwise.
pub const MODULES: &[(&str, Option<&str>)] = &[
    // The kernel uAPI mirrors first: only the items of ITEM_HEADERS are
    // written from them (the others are the kernel headers' own, which ours
    // include, e.g. rdma_cma_abi.h's struct ib_uverbs_ah_attr), and the
    // verbs modules' types win a name clash.
    ("kern.rs", None),
    ("kern_v65.rs", None),
    ("verbs.rs", Some("infiniband/verbs.h")),
    ("verbs_v65.rs", Some("infiniband/verbs.h")),
    ("cma.rs", Some("rdma/rdma_cma.h")),
    ("cma_v65.rs", Some("rdma/rdma_cma.h")),
    ("rsocket.rs", Some("rdma/rsocket.h")),
    ("opcode.rs", Some("infiniband/opcode.h")),
    ("cma_abi.rs", Some("rdma/rdma_cma_abi.h")),
    ("proto/verbs.rs", Some("infiniband/verbs.h")),
    ("proto/rdma_cma.rs", Some("rdma/rdma_cma.h")),
    ("proto/rdma_verbs.rs", Some("rdma/rdma_verbs.h")),
    ("proto/rsocket.rs", Some("rdma/rsocket.h")),
];

/// The rdma-abi modules no header is written from: the prototypes of the
/// providers' private ABI (`rdma_abi::proto::driver`). rdma-core does not
/// install its `driver.h`, and neither do we. Every file under
/// `rdma-abi/src/proto/` is either in [`MODULES`] or here (a test checks).
pub const NOT_SHIPPED: &[&str] = &[
    "proto/driver/mod.rs",
    "proto/driver/pabi34.rs",
    "proto/driver/pabi65.rs",
];

/// Names that verbs_api.h defines as macros for the kernel uAPI's
/// (`ibv_flow_action_esp` is `ib_uverbs_flow_action_esp`, ...): rdma-abi
/// mirrors those types under the ibv_ names, but C must not define them again.
pub const VERBS_API_ALIASES: &[&str] = &[
    "ibv_flow_action_esp_keymat",
    "ibv_flow_action_esp_keymat_aes_gcm_iv_algo",
    "ibv_flow_action_esp_keymat_aes_gcm",
    "ibv_flow_action_esp_replay",
    "ibv_flow_action_esp_replay_bmp",
    "ibv_flow_action_esp_flags",
    "ibv_flow_action_esp_encap",
    "ibv_flow_action_esp",
    "ibv_advise_mr_advice",
    "IBV_ADVISE_MR_FLAG_FLUSH",
    "IBV_QPF_GRH_REQUIRED",
    "IBV_ACCESS_OPTIONAL_RANGE",
    "IBV_ACCESS_OPTIONAL_FIRST",
];

/// Constants that upstream declares as members of an unnamed enum rather
/// than as macros (rdma-abi gives them a plain integer type): one group per
/// enum, by the first member's name.
pub const ANON_ENUMS: &[&[&str]] = &[
    &["RDMA_OPTION_ID", "RDMA_OPTION_IB"],
    &[
        "RDMA_OPTION_ID_TOS",
        "RDMA_OPTION_ID_REUSEADDR",
        "RDMA_OPTION_ID_AFONLY",
        "RDMA_OPTION_ID_ACK_TIMEOUT",
    ],
    &["RDMA_OPTION_IB_PATH"],
    &["RDMA_MAX_RESP_RES", "RDMA_MAX_INIT_DEPTH"],
    &[
        "RDMA_SQSIZE",
        "RDMA_RQSIZE",
        "RDMA_INLINE",
        "RDMA_IOMAPSIZE",
        "RDMA_ROUTE",
    ],
];

/// Structs a header only declares (their bodies are private to the library
/// and its providers), with the header that declares them.
pub const OPAQUE: &[(&str, &str)] = &[
    ("infiniband/verbs.h", "ibv_buf"),
    ("infiniband/verbs.h", "verbs_ex_private"),
];

/// Records whose name has the `<outer>_<member>` shape of an inline member's
/// type but which C names and declares on their own.
pub const NAMED_RECORDS: &[&str] = &["ibv_context_ops"];

/// The modules whose integers are the kernel's `__u8` ... `__u64` and
/// `__s8` ... `__s64`, as the uAPI headers spell them.
pub const KERNEL_MODULES: &[&str] = &["kern.rs", "kern_v65.rs"];

/// Headers that spell their integers the kernel's way too.
pub const KERNEL_HEADERS: &[&str] = &[
    "infiniband/ib.h",
    "infiniband/ib_user_ioctl_verbs.h",
    "rdma/rdma_cma_abi.h",
];

/// Items placed by name (a module default or banner does not fit): the
/// uAPI types rdma-core copies into `<infiniband/ib_user_ioctl_verbs.h>`.
/// An enum's constants follow it.
pub const ITEM_HEADERS: &[(&str, &str)] = &[
    ("IB_UVERBS_ACCESS_OPTIONAL_FIRST", IOCTL_VERBS),
    ("IB_UVERBS_ACCESS_OPTIONAL_LAST", IOCTL_VERBS),
    ("ib_uverbs_core_support", IOCTL_VERBS),
    ("ib_uverbs_access_flags", IOCTL_VERBS),
    ("ib_uverbs_srq_type", IOCTL_VERBS),
    ("ib_uverbs_wq_type", IOCTL_VERBS),
    ("ib_uverbs_wq_flags", IOCTL_VERBS),
    ("ib_uverbs_qp_type", IOCTL_VERBS),
    ("ib_uverbs_qp_create_flags", IOCTL_VERBS),
    ("ib_uverbs_query_port_cap_flags", IOCTL_VERBS),
    ("ib_uverbs_query_port_flags", IOCTL_VERBS),
    ("ib_uverbs_flow_action_esp_keymat", IOCTL_VERBS),
    (
        "ib_uverbs_flow_action_esp_keymat_aes_gcm_iv_algo",
        IOCTL_VERBS,
    ),
    ("ib_uverbs_flow_action_esp_keymat_aes_gcm", IOCTL_VERBS),
    ("ib_uverbs_flow_action_esp_replay", IOCTL_VERBS),
    ("ib_uverbs_flow_action_esp_replay_bmp", IOCTL_VERBS),
    ("ib_uverbs_flow_action_esp_flags", IOCTL_VERBS),
    ("ib_uverbs_flow_action_esp_encap", IOCTL_VERBS),
    ("ib_uverbs_flow_action_esp", IOCTL_VERBS),
    ("ib_uverbs_read_counters_flags", IOCTL_VERBS),
    ("ib_uverbs_advise_mr_advice", IOCTL_VERBS),
    ("ib_uverbs_advise_mr_flag", IOCTL_VERBS),
    ("ib_uverbs_query_port_resp_ex", IOCTL_VERBS),
    ("ib_uverbs_qp_cap", IOCTL_VERBS),
    ("rdma_driver_id", IOCTL_VERBS),
    ("ib_uverbs_gid_type", IOCTL_VERBS),
    ("ib_uverbs_gid_entry", IOCTL_VERBS),
    ("ib_uverbs_buffer_type", IOCTL_VERBS),
    ("ib_uverbs_buffer_desc", IOCTL_VERBS),
    ("ib_uverbs_comp_cntr_entry", IOCTL_VERBS),
    ("ib_uverbs_comp_cntr_modify_op", IOCTL_VERBS),
    ("ib_uverbs_qp_attach_comp_cntr_op", IOCTL_VERBS),
];
const IOCTL_VERBS: &str = "infiniband/ib_user_ioctl_verbs.h";

/// Attributes written before a prototype's name, as upstream declares them
/// (`__attribute_const` comes from verbs.h's hand-written head).
pub const FN_ATTRS: &[(&str, &str)] = &[
    ("ibv_rate_to_mult", "__attribute_const"),
    ("mult_to_ibv_rate", "__attribute_const"),
    ("ibv_rate_to_mbps", "__attribute_const"),
    ("mbps_to_ibv_rate", "__attribute_const"),
];

/// Pointer parameters that upstream declares as arrays: (function,
/// parameter, bound).
pub const ARRAY_PARAMS: &[(&str, &str, &str)] =
    &[("ibv_resolve_eth_l2_from_gid", "eth_mac", "ETHERNET_LL_SIZE")];
