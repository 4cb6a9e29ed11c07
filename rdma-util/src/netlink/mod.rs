//! RDMA device discovery over NETLINK_RDMA (the kernel's "nldev" interface).
//!
//! libibverbs asks the kernel three things over this socket:
//! - `RDMA_NLDEV_CMD_GET` as a dump: every RDMA device in this network
//!   namespace, with its index, name, node GUID, node type and port count;
//! - `RDMA_NLDEV_CMD_GET_CHARDEV`: the character device of a given ABI
//!   ("uverbs", "rdma_cm", ...) of one device, or of none;
//! - `RDMA_NLDEV_CMD_SYS_GET`: whether the kernel does copy-on-fork for
//!   pinned pages.
//!
//! NETLINK_RDMA is not generic netlink: the message type itself encodes
//! client and command ([`RDMA_NL_GET_TYPE`]) and attributes follow the
//! netlink header directly. We therefore use neli only as the socket layer
//! ([`sock`]) and encode/decode the messages ourselves ([`wire`]).
//!
//! Reply handling follows upstream rdma-core 44 on libnl 3.7 exactly, since
//! its quirks decide which devices an application sees:
//! - the socket requests no ACKs and does not check sequence numbers;
//! - an `NLMSG_ERROR` with a non-zero code anywhere in the reply marks the
//!   whole request failed, but reading continues to the end of the reply;
//! - an attribute shorter than its type (u8/u32/u64 per upstream's policy)
//!   anywhere in a message fails the whole request;
//! - a message that lacks one of the attributes upstream requires (or whose
//!   name does not fit libibverbs' 64-byte name buffers) ends processing
//!   *successfully*: libnl treats the callback's positive error code as
//!   "stop". For the device dump this means the devices before that message
//!   are returned and the rest are not; for GET_CHARDEV it means no chardev
//!   (upstream then finds the name empty and fails). Unlike libnl, we then
//!   drain the rest of the dump so that the session's socket stays usable.
//! - `NLM_F_DUMP_INTR` fails the request (libnl does not restart here);
//!   `NLMSG_OVERRUN` fails it too.

pub mod sock;
pub mod wire;

use neli::consts::socket::NlFamily;

use rdma_abi::netlink::*;
use sock::Socket;
use wire::{AttrTable, MsgBuilder, NlMsg, NLMSG_DONE, NLMSG_ERROR, NLMSG_NOOP, NLMSG_OVERRUN};
use wire::{NLM_F_DUMP, NLM_F_DUMP_INTR, NLM_F_MULTI};

/// libibverbs' name buffers (`IBV_SYSFS_NAME_MAX`): a device or chardev name
/// must be shorter than this, NUL excluded.
pub const IBV_SYSFS_NAME_MAX: usize = 64;

/// One RDMA device from the `RDMA_NLDEV_CMD_GET` dump.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NlDevice {
    pub ibdev_idx: u32,
    pub name: String,
    /// As the kernel sends it: a host-order u64 attribute.
    pub node_guid: u64,
    /// Kernel `RDMA_NODE_*` value (not yet translated to `IBV_NODE_*`).
    pub node_type: u8,
    pub num_ports: u32,
}

/// A character device from `RDMA_NLDEV_CMD_GET_CHARDEV`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NlChardev {
    /// Kernel name of the /dev node, e.g. "uverbs0".
    pub name: String,
    /// Already converted from the kernel's `huge_encode_dev` form.
    pub cdev: libc::dev_t,
    /// RDMA_NLDEV_ATTR_CHARDEV_ABI (upper 32 bits reserved, 0 today).
    pub abi: u64,
    /// RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID when the kernel sends it (upstream
    /// uses RDMA_DRIVER_UNKNOWN otherwise).
    pub driver_id: Option<u32>,
}

// Errno values for failures that have no errno of their own.
/// A reply attribute shorter than its type (libnl's NLE_RANGE).
const E_SHORT_ATTR: i32 = libc::ERANGE;
/// A malformed reply: truncated NLMSG_ERROR, NLMSG_OVERRUN.
const E_BAD_REPLY: i32 = libc::EPROTO;
/// The dump was interrupted by a concurrent change (NLM_F_DUMP_INTR).
const E_DUMP_INTR: i32 = libc::EAGAIN;
/// GET_CHARDEV answered, but without a usable chardev.
const E_NO_CHARDEV: i32 = libc::ENOENT;

/// Converts the kernel's `huge_encode_dev` form (minor low 8 bits, major 12
/// bits, then minor high bits) to a glibc `dev_t`.
pub fn decode_huge_dev(cdev64: u64) -> libc::dev_t {
    let major = ((cdev64 & 0xfff00) >> 8) as libc::c_uint;
    let minor = ((cdev64 & 0xff) | ((cdev64 >> 12) & 0xfff00)) as libc::c_uint;
    libc::makedev(major, minor)
}

/// Attribute minimum lengths of upstream's validation policy; any attribute
/// of these types shorter than this fails the message. Strings are not
/// checked (upstream's string entries are compiled out with libnl 3).
const POLICY: &[(u16, usize)] = &[
    (RDMA_NLDEV_ATTR_CHARDEV, 8),
    (RDMA_NLDEV_ATTR_CHARDEV_ABI, 8),
    (RDMA_NLDEV_ATTR_DEV_INDEX, 4),
    (RDMA_NLDEV_ATTR_DEV_NODE_TYPE, 1),
    (RDMA_NLDEV_ATTR_NODE_GUID, 8),
    (RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID, 4),
    (RDMA_NLDEV_ATTR_PORT_INDEX, 4),
    (RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1),
];

/// Highest attribute type taken from a message (upstream parses with
/// `RDMA_NLDEV_ATTR_MAX - 1`).
const MAXTYPE: u16 = RDMA_NLDEV_ATTR_MAX - 1;

/// Parses an NLDEV message's attributes, enforcing the policy.
fn parse_nldev<'a>(msg: &NlMsg<'a>) -> Result<AttrTable<'a>, i32> {
    let buf = msg.attrs_after(0);
    for (ty, payload) in wire::attrs(buf) {
        if ty > MAXTYPE {
            continue;
        }
        if let Some(&(_, min)) = POLICY.iter().find(|(t, _)| *t == ty) {
            if payload.len() < min {
                return Err(E_SHORT_ATTR);
            }
        }
    }
    Ok(AttrTable::parse(buf, MAXTYPE))
}

/// A name that fits libibverbs' buffers, as a String: `Ok(None)` when it
/// does not fit (or is not UTF-8), ENOMEM when the copy cannot be made.
fn fitting_name(bytes: &[u8]) -> Result<Option<String>, i32> {
    if bytes.len() >= IBV_SYSFS_NAME_MAX {
        return Ok(None);
    }
    let Ok(s) = std::str::from_utf8(bytes) else { return Ok(None) };
    let mut name = String::new();
    name.try_reserve_exact(s.len()).map_err(|_| libc::ENOMEM)?;
    name.push_str(s);
    Ok(Some(name))
}

/// What a message handler wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// Keep going.
    Next,
    /// Stop processing, successfully (libnl: a positive callback result).
    Stop,
}

/// One device of the dump, `Ok(None)` when the message lacks an attribute
/// upstream requires or its name does not fit (processing stops there).
fn parse_device(msg: &NlMsg<'_>) -> Result<Option<NlDevice>, i32> {
    let tb = parse_nldev(msg)?;
    let (Some(name), Some(node_type), Some(idx), Some(guid), Some(ports)) = (
        tb.str_bytes(RDMA_NLDEV_ATTR_DEV_NAME),
        tb.u8(RDMA_NLDEV_ATTR_DEV_NODE_TYPE),
        tb.u32(RDMA_NLDEV_ATTR_DEV_INDEX),
        tb.u64(RDMA_NLDEV_ATTR_NODE_GUID),
        tb.u32(RDMA_NLDEV_ATTR_PORT_INDEX),
    ) else {
        return Ok(None);
    };
    let Some(name) = fitting_name(name)? else {
        return Ok(None);
    };
    Ok(Some(NlDevice {
        ibdev_idx: idx,
        name,
        node_guid: guid,
        node_type,
        num_ports: ports,
    }))
}

/// The chardev in a GET_CHARDEV reply, `Ok(None)` when a required attribute
/// is missing or the name does not fit.
fn parse_chardev(msg: &NlMsg<'_>) -> Result<Option<NlChardev>, i32> {
    let tb = parse_nldev(msg)?;
    let (Some(cdev), Some(abi), Some(name)) = (
        tb.u64(RDMA_NLDEV_ATTR_CHARDEV),
        tb.u64(RDMA_NLDEV_ATTR_CHARDEV_ABI),
        tb.str_bytes(RDMA_NLDEV_ATTR_CHARDEV_NAME),
    ) else {
        return Ok(None);
    };
    let Some(name) = fitting_name(name)? else {
        return Ok(None);
    };
    Ok(Some(NlChardev {
        name,
        cdev: decode_huge_dev(cdev),
        abi,
        driver_id: tb.u32(RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID),
    }))
}

/// The copy-on-fork flag of a SYS_GET reply (false when absent).
fn parse_copy_on_fork(msg: &NlMsg<'_>) -> Result<bool, i32> {
    let tb = parse_nldev(msg)?;
    Ok(tb.u8(RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK).unwrap_or(0) != 0)
}

/// Where reply datagrams come from: the socket, or canned bytes in tests.
trait Datagrams {
    fn next_datagram(&mut self) -> Result<&[u8], i32>;
}

impl Datagrams for Socket {
    fn next_datagram(&mut self) -> Result<&[u8], i32> {
        self.recv()
    }
}

/// Reads one reply (a single answer, or a dump up to NLMSG_DONE), handing
/// each data message to `handler`, with the error rules described in the
/// module documentation.
fn read_reply<D, H>(src: &mut D, mut handler: H) -> Result<(), i32>
where
    D: Datagrams + ?Sized,
    H: FnMut(&NlMsg<'_>) -> Result<Step, i32>,
{
    let mut failed: Option<i32> = None;
    let mut interrupted = false;
    // Like libnl's, this survives from one datagram to the next: set by any
    // NLM_F_MULTI message, cleared by NLMSG_DONE.
    let mut multipart = false;
    // The handler said stop: the rest of the reply is only read to find its
    // end, so nothing of it is left in the socket.
    let mut stopped = false;
    loop {
        let dg = src.next_datagram()?;
        if dg.is_empty() {
            break;
        }
        for msg in wire::messages(dg) {
            if stopped {
                if msg.ty == NLMSG_DONE {
                    multipart = false;
                    break;
                }
                continue;
            }
            if msg.flags & NLM_F_MULTI != 0 {
                multipart = true;
            }
            if msg.flags & NLM_F_DUMP_INTR != 0 {
                interrupted = true;
            }
            match msg.ty {
                NLMSG_DONE => multipart = false,
                NLMSG_NOOP => {}
                NLMSG_OVERRUN => return Err(E_BAD_REPLY),
                NLMSG_ERROR => match msg.error_code() {
                    None => return Err(E_BAD_REPLY),
                    Some(0) => {}
                    Some(e) => failed = Some(e.checked_neg().unwrap_or(libc::EIO)),
                },
                _ => {
                    if handler(&msg)? == Step::Stop {
                        stopped = true;
                    }
                }
            }
        }
        if !multipart {
            break;
        }
    }
    if interrupted {
        return Err(E_DUMP_INTR);
    }
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A NETLINK_RDMA session: one socket for the device dump and the
/// per-device chardev queries that follow it, as upstream uses it.
pub struct RdmaNl {
    sock: Socket,
}

impl RdmaNl {
    /// Opens the socket. Fails with the socket's errno, e.g.
    /// `EPROTONOSUPPORT` when the kernel has no RDMA netlink.
    pub fn open() -> Result<RdmaNl, i32> {
        Ok(RdmaNl {
            sock: Socket::open(NlFamily::Rdma)?,
        })
    }

    /// The `RDMA_NLDEV_CMD_GET` dump, in the kernel's order.
    pub fn get_devices(&mut self) -> Result<Vec<NlDevice>, i32> {
        self.sock.send(devices_request())?;
        collect_devices(&mut self.sock)
    }

    /// `RDMA_NLDEV_CMD_GET_CHARDEV` for `kind`, of device `ibdev_idx` or of
    /// no device.
    pub fn get_chardev(&mut self, ibdev_idx: Option<u32>, kind: &str) -> Result<NlChardev, i32> {
        self.sock.send(chardev_request(ibdev_idx, kind))?;
        collect_chardev(&mut self.sock)
    }

    /// `RDMA_NLDEV_CMD_SYS_GET`: the copy-on-fork flag, false if the kernel
    /// does not report it.
    pub fn get_copy_on_fork(&mut self) -> Result<bool, i32> {
        self.sock.send(sys_get_request())?;
        collect_copy_on_fork(&mut self.sock)
    }
}

fn devices_request() -> MsgBuilder {
    MsgBuilder::new(
        RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET),
        NLM_F_DUMP,
    )
}

fn chardev_request(ibdev_idx: Option<u32>, kind: &str) -> MsgBuilder {
    let mut m = MsgBuilder::new(
        RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET_CHARDEV),
        0,
    );
    if let Some(idx) = ibdev_idx {
        m = m.attr_u32(RDMA_NLDEV_ATTR_DEV_INDEX, idx);
    }
    m.attr_str(RDMA_NLDEV_ATTR_CHARDEV_TYPE, kind)
}

fn sys_get_request() -> MsgBuilder {
    MsgBuilder::new(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_SYS_GET), 0)
}

fn collect_devices<D: Datagrams + ?Sized>(src: &mut D) -> Result<Vec<NlDevice>, i32> {
    let mut devs = Vec::new();
    read_reply(src, |msg| match parse_device(msg)? {
        Some(d) => {
            crate::fallible::push(&mut devs, d).map_err(|_| libc::ENOMEM)?;
            Ok(Step::Next)
        }
        None => Ok(Step::Stop),
    })?;
    Ok(devs)
}

fn collect_chardev<D: Datagrams + ?Sized>(src: &mut D) -> Result<NlChardev, i32> {
    let mut found = None;
    read_reply(src, |msg| match parse_chardev(msg)? {
        Some(c) => {
            found = Some(c);
            Ok(Step::Next)
        }
        None => Ok(Step::Stop),
    })?;
    found.ok_or(E_NO_CHARDEV)
}

fn collect_copy_on_fork<D: Datagrams + ?Sized>(src: &mut D) -> Result<bool, i32> {
    let mut cof = false;
    read_reply(src, |msg| {
        cof = parse_copy_on_fork(msg)?;
        Ok(Step::Next)
    })?;
    Ok(cof)
}

/// The RDMA_NLDEV_CMD_GET dump. Err(errno) if the socket can't be opened
/// (e.g. kernel without RDMA netlink: EPROTONOSUPPORT) or the dump fails
/// (kernel error: its errno; short attribute: ERANGE; interrupted dump:
/// EAGAIN; malformed reply: EPROTO). A message lacking a required attribute
/// ends the list there, successfully, as upstream (see the module docs).
pub fn get_devices() -> Result<Vec<NlDevice>, i32> {
    RdmaNl::open()?.get_devices()
}

/// RDMA_NLDEV_CMD_GET_CHARDEV for `kind` ("uverbs", later "rdma_cm"), with
/// DEV_INDEX when ibdev_idx is Some. Err(ENOENT) when the reply carries no
/// usable chardev; other errors as for [`get_devices`].
pub fn get_chardev(ibdev_idx: Option<u32>, kind: &str) -> Result<NlChardev, i32> {
    RdmaNl::open()?.get_chardev(ibdev_idx, kind)
}

/// RDMA_NLDEV_CMD_SYS_GET: RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, false if absent
/// or on any error.
pub fn get_copy_on_fork() -> bool {
    RdmaNl::open()
        .and_then(|mut s| s.get_copy_on_fork())
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::wire::testbuf::{attr, done, error, msg};
    use super::wire::{NLMSG_HDRLEN, NLM_F_REQUEST};
    use super::*;
    use std::collections::VecDeque;

    /// Replies served from canned datagrams; running dry is a test failure
    /// (a real socket would block).
    struct Canned {
        queue: VecDeque<Vec<u8>>,
        cur: Vec<u8>,
    }

    impl Canned {
        fn new(dgs: Vec<Vec<u8>>) -> Self {
            Canned {
                queue: dgs.into(),
                cur: Vec::new(),
            }
        }
    }

    impl Datagrams for Canned {
        fn next_datagram(&mut self) -> Result<&[u8], i32> {
            self.cur = self
                .queue
                .pop_front()
                .expect("reader wanted more datagrams than the kernel sent");
            Ok(&self.cur)
        }
    }

    const GET: u16 = (5 << 10) + 1;
    const GET_CHARDEV: u16 = (5 << 10) + 15;

    /// A device message as the kernel's fill_dev_info() lays it out (a
    /// subset, plus an attribute we don't use).
    fn dev_msg(idx: u32, name: &str, guid: u64, node_type: u8, ports: u32) -> Vec<u8> {
        let mut b = attr(1, &idx.to_ne_bytes()); // DEV_INDEX
        b.extend(attr(2, format!("{name}\0").as_bytes())); // DEV_NAME
        b.extend(attr(3, &ports.to_ne_bytes())); // PORT_INDEX
        b.extend(attr(4, &0x1234u64.to_ne_bytes())); // CAP_FLAGS, ignored
        b.extend(attr(6, &guid.to_ne_bytes())); // NODE_GUID
        b.extend(attr(14, &[node_type])); // DEV_NODE_TYPE
        msg(GET, NLM_F_MULTI, 1, &b)
    }

    fn cat(parts: &[&[u8]]) -> Vec<u8> {
        parts.concat()
    }

    #[test]
    fn constants_used_match_the_header_layout() {
        assert_eq!(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET), GET);
        assert_eq!(
            RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET_CHARDEV),
            GET_CHARDEV
        );
        assert_eq!(MAXTYPE, 95);
    }

    #[test]
    fn dump_request_bytes() {
        let m = devices_request().finish(7);
        let mut want = Vec::new();
        want.extend_from_slice(&16u32.to_ne_bytes());
        want.extend_from_slice(&GET.to_ne_bytes());
        want.extend_from_slice(&(NLM_F_REQUEST | 0x300).to_ne_bytes());
        want.extend_from_slice(&7u32.to_ne_bytes());
        want.extend_from_slice(&0u32.to_ne_bytes());
        assert_eq!(m, want);
    }

    #[test]
    fn chardev_request_bytes() {
        let m = chardev_request(Some(3), "uverbs").finish(9);
        let body = cat(&[&attr(1, &3u32.to_ne_bytes()), &attr(69, b"uverbs\0")]);
        let mut want = msg(GET_CHARDEV, NLM_F_REQUEST, 9, &body);
        // testbuf::msg writes the header with pid 0 like the builder
        assert_eq!(m.len(), NLMSG_HDRLEN + 8 + 12);
        assert_eq!(m, want);
        // Without an index there is only the type attribute.
        let m = chardev_request(None, "rdma_cm").finish(10);
        want = msg(GET_CHARDEV, NLM_F_REQUEST, 10, &attr(69, b"rdma_cm\0"));
        assert_eq!(m, want);
    }

    #[test]
    fn sys_get_request_bytes() {
        let m = sys_get_request().finish(1);
        assert_eq!(m, msg((5 << 10) + 6, NLM_F_REQUEST, 1, &[]));
    }

    #[test]
    fn dump_over_two_datagrams() {
        let mut c = Canned::new(vec![
            cat(&[
                &dev_msg(0, "mlx5_0", 0x0011_2233_4455_6677, 1, 1),
                &dev_msg(3, "rxe0", 0xabcd, 1, 1),
            ]),
            cat(&[&dev_msg(7, "siw0", 0x5, 4, 2), &done(1)]),
        ]);
        let devs = collect_devices(&mut c).unwrap();
        assert_eq!(
            devs,
            vec![
                NlDevice {
                    ibdev_idx: 0,
                    name: "mlx5_0".into(),
                    node_guid: 0x0011_2233_4455_6677,
                    node_type: 1,
                    num_ports: 1
                },
                NlDevice {
                    ibdev_idx: 3,
                    name: "rxe0".into(),
                    node_guid: 0xabcd,
                    node_type: 1,
                    num_ports: 1
                },
                NlDevice {
                    ibdev_idx: 7,
                    name: "siw0".into(),
                    node_guid: 5,
                    node_type: RDMA_NODE_RNIC,
                    num_ports: 2
                },
            ]
        );
        assert!(c.queue.is_empty());
    }

    #[test]
    fn empty_dump() {
        let mut c = Canned::new(vec![done(1)]);
        assert_eq!(collect_devices(&mut c).unwrap(), vec![]);
    }

    #[test]
    fn error_in_dump_fails_after_reading_to_the_end() {
        let mut c = Canned::new(vec![
            cat(&[&dev_msg(0, "a", 1, 1, 1), &error(1, -libc::EMSGSIZE)]),
            cat(&[&dev_msg(1, "b", 2, 1, 1), &done(1)]),
        ]);
        assert_eq!(collect_devices(&mut c), Err(libc::EMSGSIZE));
        assert!(c.queue.is_empty(), "the rest of the dump was consumed");
        // An error answering the request itself (not multipart).
        let mut c = Canned::new(vec![error(1, -libc::EOPNOTSUPP)]);
        assert_eq!(collect_devices(&mut c), Err(libc::EOPNOTSUPP));
        // An ACK (error 0) is no failure.
        let mut c = Canned::new(vec![cat(&[
            &error(1, 0),
            &dev_msg(0, "a", 1, 1, 1),
            &done(1),
        ])]);
        assert_eq!(collect_devices(&mut c).unwrap().len(), 1);
    }

    #[test]
    fn missing_required_attribute_truncates_the_list() {
        // Second device lacks NODE_GUID: upstream keeps the first device and
        // reports success; the remaining messages are drained.
        let mut no_guid = attr(1, &1u32.to_ne_bytes());
        no_guid.extend(attr(2, b"b\0"));
        no_guid.extend(attr(3, &1u32.to_ne_bytes()));
        no_guid.extend(attr(14, &[1]));
        let mut c = Canned::new(vec![
            cat(&[
                &dev_msg(0, "a", 1, 1, 1),
                &msg(GET, NLM_F_MULTI, 1, &no_guid),
                &dev_msg(2, "c", 3, 1, 1),
            ]),
            cat(&[&dev_msg(3, "d", 4, 1, 1), &error(1, -libc::EIO)]),
            done(1),
        ]);
        let devs = collect_devices(&mut c).unwrap();
        assert_eq!(devs.len(), 1);
        assert_eq!(devs[0].name, "a");
        assert!(c.queue.is_empty(), "drained to NLMSG_DONE");
        // Each required attribute is required.
        for skip in [1u16, 2, 3, 6, 14] {
            let mut b = Vec::new();
            for (ty, p) in [
                (1u16, 0u32.to_ne_bytes().to_vec()),
                (2, b"x\0".to_vec()),
                (3, 1u32.to_ne_bytes().to_vec()),
                (6, 1u64.to_ne_bytes().to_vec()),
                (14, vec![1]),
            ] {
                if ty != skip {
                    b.extend(attr(ty, &p));
                }
            }
            let mut c = Canned::new(vec![cat(&[&msg(GET, NLM_F_MULTI, 1, &b), &done(1)])]);
            assert_eq!(
                collect_devices(&mut c).unwrap(),
                vec![],
                "without attribute {skip}"
            );
        }
    }

    #[test]
    fn overlong_name_truncates_the_list() {
        let long = "x".repeat(64);
        let mut c = Canned::new(vec![cat(&[
            &dev_msg(0, &"y".repeat(63), 1, 1, 1),
            &dev_msg(1, &long, 1, 1, 1),
            &done(1),
        ])]);
        let devs = collect_devices(&mut c).unwrap();
        assert_eq!(devs.len(), 1);
        assert_eq!(devs[0].name.len(), 63);
    }

    #[test]
    fn short_attribute_fails_the_dump() {
        // NODE_GUID with 4 bytes.
        let mut b = attr(1, &0u32.to_ne_bytes());
        b.extend(attr(2, b"a\0"));
        b.extend(attr(3, &1u32.to_ne_bytes()));
        b.extend(attr(6, &1u32.to_ne_bytes()));
        b.extend(attr(14, &[1]));
        let mut c = Canned::new(vec![cat(&[&msg(GET, NLM_F_MULTI, 1, &b), &done(1)])]);
        assert_eq!(collect_devices(&mut c), Err(libc::ERANGE));
        // A policed attribute the dump doesn't need still counts...
        let mut b = dev_msg(0, "a", 1, 1, 1)[16..].to_vec();
        b.extend(attr(72, &[0; 4])); // CHARDEV, short
        let mut c = Canned::new(vec![cat(&[&msg(GET, NLM_F_MULTI, 1, &b), &done(1)])]);
        assert_eq!(collect_devices(&mut c), Err(libc::ERANGE));
        // ...while attributes beyond the parsed range are ignored.
        let mut b = dev_msg(0, "a", 1, 1, 1)[16..].to_vec();
        b.extend(attr(RDMA_NLDEV_ATTR_MAX, &[0; 1]));
        let mut c = Canned::new(vec![cat(&[&msg(GET, NLM_F_MULTI, 1, &b), &done(1)])]);
        assert_eq!(collect_devices(&mut c).unwrap().len(), 1);
    }

    #[test]
    fn interrupted_or_overrun_dump_fails() {
        let mut m = dev_msg(0, "a", 1, 1, 1);
        m[6..8].copy_from_slice(&(NLM_F_MULTI | NLM_F_DUMP_INTR).to_ne_bytes());
        let mut c = Canned::new(vec![cat(&[&m, &done(1)])]);
        assert_eq!(collect_devices(&mut c), Err(libc::EAGAIN));
        let mut c = Canned::new(vec![cat(&[
            &dev_msg(0, "a", 1, 1, 1),
            &msg(NLMSG_OVERRUN, 0, 1, &[]),
        ])]);
        assert_eq!(collect_devices(&mut c), Err(libc::EPROTO));
    }

    fn chardev_msg(name: &str, cdev64: u64, abi: u64, driver_id: Option<u32>) -> Vec<u8> {
        let mut b = attr(69, b"uverbs\0");
        b.extend(attr(70, format!("{name}\0").as_bytes()));
        b.extend(attr(71, &abi.to_ne_bytes()));
        b.extend(attr(72, &cdev64.to_ne_bytes()));
        if let Some(d) = driver_id {
            b.extend(attr(73, &d.to_ne_bytes()));
        }
        msg(GET_CHARDEV, 0, 1, &b)
    }

    /// The kernel's huge_encode_dev(): minor low byte, 12 bits of major,
    /// then the minor's upper bits.
    fn huge_encode(major: u64, minor: u64) -> u64 {
        (minor & 0xff) | (major << 8) | ((minor & !0xff) << 12)
    }

    #[test]
    fn chardev_reply() {
        let mut c = Canned::new(vec![chardev_msg(
            "uverbs0",
            huge_encode(231, 192),
            6,
            Some(14),
        )]);
        let cd = collect_chardev(&mut c).unwrap();
        assert_eq!(cd.name, "uverbs0");
        assert_eq!(cd.cdev, libc::makedev(231, 192));
        assert_eq!((libc::major(cd.cdev), libc::minor(cd.cdev)), (231, 192));
        assert_eq!(cd.abi, 6);
        assert_eq!(cd.driver_id, Some(14));
        // Large major/minor survive the conversion.
        let mut c = Canned::new(vec![chardev_msg(
            "uverbs9",
            huge_encode(0xabc, 0x12345),
            1,
            None,
        )]);
        let cd = collect_chardev(&mut c).unwrap();
        assert_eq!(
            (libc::major(cd.cdev), libc::minor(cd.cdev)),
            (0xabc, 0x12345)
        );
        assert_eq!(cd.driver_id, None);
    }

    #[test]
    fn chardev_failures() {
        // The kernel refuses (e.g. no such device or unknown type).
        let mut c = Canned::new(vec![error(1, -libc::EINVAL)]);
        assert_eq!(collect_chardev(&mut c), Err(libc::EINVAL));
        // A reply without the name: no chardev.
        let mut b = attr(71, &6u64.to_ne_bytes());
        b.extend(attr(72, &1u64.to_ne_bytes()));
        let mut c = Canned::new(vec![msg(GET_CHARDEV, 0, 1, &b)]);
        assert_eq!(collect_chardev(&mut c), Err(libc::ENOENT));
        // A short CHARDEV_ABI fails the parse.
        let mut b = attr(70, b"uverbs0\0");
        b.extend(attr(71, &6u32.to_ne_bytes()));
        b.extend(attr(72, &1u64.to_ne_bytes()));
        let mut c = Canned::new(vec![msg(GET_CHARDEV, 0, 1, &b)]);
        assert_eq!(collect_chardev(&mut c), Err(libc::ERANGE));
    }

    #[test]
    fn copy_on_fork_reply() {
        let sys = (5 << 10) + 6;
        let mut b = attr(66, &[0]); // NETNS_MODE
        b.extend(attr(RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, &[1]));
        let mut c = Canned::new(vec![msg(sys, 0, 1, &b)]);
        assert_eq!(collect_copy_on_fork(&mut c), Ok(true));
        let mut c = Canned::new(vec![msg(sys, 0, 1, &attr(66, &[0]))]);
        assert_eq!(
            collect_copy_on_fork(&mut c),
            Ok(false),
            "older kernels don't send it"
        );
        let mut c = Canned::new(vec![error(1, -libc::EOPNOTSUPP)]);
        assert_eq!(collect_copy_on_fork(&mut c), Err(libc::EOPNOTSUPP));
    }

    #[test]
    fn decode_huge_dev_matches_glibc() {
        assert_eq!(decode_huge_dev(huge_encode(231, 0)), libc::makedev(231, 0));
        assert_eq!(
            decode_huge_dev(huge_encode(1, 0xfffff)),
            libc::makedev(1, 0xfffff)
        );
    }

    /// This machine's kernel has no RDMA netlink: the socket cannot even be
    /// created, and everything reports failure as upstream's callers expect.
    /// (Where the kernel has RDMA netlink the dump must simply succeed.)
    #[test]
    fn live_kernel() {
        match get_devices() {
            Err(e) => {
                eprintln!(
                    "get_devices() = Err({e}) ({})",
                    std::io::Error::from_raw_os_error(e)
                );
                assert_eq!(e, libc::EPROTONOSUPPORT);
                assert_eq!(
                    get_chardev(None, "uverbs").unwrap_err(),
                    libc::EPROTONOSUPPORT
                );
                assert!(!get_copy_on_fork());
            }
            Ok(devs) => eprintln!("this kernel has RDMA netlink: {devs:?}"),
        }
    }

    /// Hostile replies: a valid two-device dump, a chardev answer and a
    /// copy-on-fork answer, each mutated (bytes changed, cut, inserted,
    /// length fields set to edge values) and split over two datagrams.
    /// Reading must end with Ok or an errno, never panic or read out of
    /// bounds, and every device it accepts must have a name that fits
    /// libibverbs' buffers.
    #[test]
    fn fuzz_hostile_replies() {
        struct Src {
            dgs: VecDeque<Vec<u8>>,
            cur: Vec<u8>,
        }
        impl Datagrams for Src {
            fn next_datagram(&mut self) -> Result<&[u8], i32> {
                // Dry: an empty datagram ends the reply (a socket would
                // block; the reader must stop either way).
                self.cur = self.dgs.pop_front().unwrap_or_default();
                Ok(&self.cur)
            }
        }
        let src = |a: &[u8], b: &[u8]| Src { dgs: vec![a.to_vec(), b.to_vec()].into(), cur: Vec::new() };
        let dump = cat(&[&dev_msg(0, "rxe0", 0x5054_00ff_fe12_3456, 1, 1), &dev_msg(1, "siw0", 7, 4, 1), &done(1)]);
        let chardev = chardev_msg("uverbs0", 0xe7_00, 6, Some(18));
        let cof = msg(GET, 0, 1, &attr(RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, &[1]));
        crate::fuzz::run(
            "netlink replies",
            20_000,
            |r| {
                let base = [&dump, &chardev, &cof][r.below(3)];
                let m = r.mutate(base);
                let split = r.below(m.len() + 1);
                (m[..split].to_vec(), m[split..].to_vec())
            },
            |(a, b)| {
                if let Ok(devs) = collect_devices(&mut src(a, b)) {
                    assert!(devs.iter().all(|d| d.name.len() < IBV_SYSFS_NAME_MAX && !d.name.contains('\0')));
                }
                if let Ok(c) = collect_chardev(&mut src(a, b)) {
                    assert!(c.name.len() < IBV_SYSFS_NAME_MAX);
                }
                let _ = collect_copy_on_fork(&mut src(a, b));
            },
        );
    }

    /// The wire walkers on random bytes: they stop at the first header or
    /// length that does not fit, and every slice they hand out lies inside
    /// the input.
    #[test]
    fn fuzz_wire_walkers() {
        crate::fuzz::run(
            "netlink framing",
            20_000,
            |r| {
                let n = r.below(200);
                r.bytes(n)
            },
            |buf| {
                let range = buf.as_ptr_range();
                let inside = |s: &[u8]| s.is_empty() || (range.contains(&s.as_ptr()) && s.len() <= buf.len());
                for m in wire::messages(buf) {
                    assert!(inside(m.payload));
                    for (_, p) in wire::attrs(m.attrs_after(0)) {
                        assert!(inside(p));
                    }
                    let _ = m.error_code();
                    let t = wire::AttrTable::parse(m.attrs_after(4), 1000);
                    for ty in 0..300u16 {
                        let _ = (t.u8(ty), t.u16(ty), t.u32(ty), t.u64(ty), t.str_bytes(ty));
                    }
                }
            },
        );
    }
}
