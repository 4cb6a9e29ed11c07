//! Event channels, CM ids and event delivery.
//!
//! An id is an [`IdPriv`] whose first field is the public `rdma_cm_id`, so
//! the application's `struct rdma_cm_id *` converts to and from it. The
//! kernel knows the id by `handle`; it tags every event with the user id
//! (`uid`) we gave it, the address of our `IdPriv` (or of an [`Mcast`] for
//! multicast events). A "synchronous" id (created without a channel) owns a
//! private channel and its calls wait for their own completion event.
//!
//! Every event handed out must be acked; destroying an id (and leaving a
//! multicast group) waits until the application has acked as many events
//! as the kernel reports having delivered for it.
//!
//! Ownership and aliasing: ids, events and channels are heap objects owned
//! by the application between create and destroy, as in C. An id's fields
//! are written only by calls made on that id (the application serialises
//! those, as with upstream); the event counters that other threads touch
//! (acks, destroy) live behind `ev`, which is reached without forming a
//! reference to the whole id.

use crate::abi::cma::*;
use crate::abi::ucma::*;
use crate::abi::verbs::*;
use crate::devices::CmaDevice;
use crate::ffi::set_errno;
#[cfg(test)]
use crate::ffi::errno;
use crate::ucma::{uaddr, write_cmd_resp};
use core::ffi::{c_int, c_void};
use core::ptr::{addr_of, addr_of_mut, null_mut};
use parking_lot::{Condvar, Mutex};

/// Result of an internal step: Err(errno) means "fail with -1 and errno".
pub type Res<T> = Result<T, c_int>;

/// Turns a step's result into upstream's int convention (0, or -1 + errno).
pub fn ret_int(r: Res<()>) -> c_int {
    match r {
        Ok(()) => 0,
        Err(e) => {
            set_errno(e);
            -1
        }
    }
}

/// Counters shared with other threads (acks, destroy, leave).
pub struct EvState {
    pub events_completed: u64,
    pub mc_list: Vec<*mut Mcast>,
}

/// librdmacm's private id; `id` must stay the first field.
#[repr(C)]
pub struct IdPriv {
    pub id: rdma_cm_id,
    pub cma_dev: *mut CmaDevice,
    /// Private data prepended to the next connect (rdma_create_ep).
    pub connect: Vec<u8>,
    pub connect_error: bool,
    pub sync: bool,
    pub handle: u32,
    /// QP to create on each request of a passive endpoint.
    pub qp_init_attr: Option<Box<ibv_qp_init_attr>>,
    pub initiator_depth: u8,
    pub responder_resources: u8,
    pub local_ece: ibv_ece,
    pub remote_ece: ibv_ece,
    pub ev: Mutex<EvState>,
    pub cond: Condvar,
}

/// A joined multicast group of an id.
pub struct Mcast {
    pub id_priv: *mut IdPriv,
    pub context: *mut c_void,
    /// Acked events of this group; changed under the id's `ev` lock.
    pub events_completed: u64,
    pub handle: u32,
    pub mgid: ibv_gid,
    pub mlid: u16,
    pub join_flags: u16,
    pub addr: libc::sockaddr_storage,
}

/// An event as handed out; `event` must stay the first field.
#[repr(C)]
pub struct CmaEvent {
    pub event: rdma_cm_event,
    pub private_data: [u8; RDMA_MAX_PRIVATE_DATA],
    pub id_priv: *mut IdPriv,
    pub mc: *mut Mcast,
}

/// A handle on a live id.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Id(pub *mut IdPriv);

impl Id {
    /// The id behind an application's `rdma_cm_id *` (non-null, from us).
    pub fn from_cm(id: *mut rdma_cm_id) -> Id {
        Id(id.cast())
    }
    pub fn cm(self) -> *mut rdma_cm_id {
        self.0.cast()
    }
    /// The id's fields (see the module docs for the aliasing rules).
    #[allow(clippy::mut_from_ref)]
    pub fn p(self) -> &'static mut IdPriv {
        // SAFETY: self.0 is a live IdPriv (created by alloc_id, freed only by
        // free_id); calls on one id are serialised by the application.
        unsafe { &mut *self.0 }
    }
    /// The public part.
    pub fn c(self) -> &'static mut rdma_cm_id {
        &mut self.p().id
    }
    /// The public `route.addr` source address storage, as a raw pointer
    /// (for copies into it and for APIs taking a `sockaddr *`).
    pub fn src_storage(self) -> *mut libc::sockaddr_storage {
        // SAFETY: self.0 is live; addr_of_mut! only computes the field's
        // address, it reads nothing and forms no reference.
        unsafe { addr_of_mut!((*self.0).id.route.addr.src).cast() }
    }
    /// The destination address storage, as [`Id::src_storage`].
    pub fn dst_storage(self) -> *mut libc::sockaddr_storage {
        // SAFETY: as in src_storage.
        unsafe { addr_of_mut!((*self.0).id.route.addr.dst).cast() }
    }
    /// The shared event counters and their condition variable.
    pub fn ev(self) -> (&'static Mutex<EvState>, &'static Condvar) {
        // SAFETY: self.0 is live; the fields are reached by raw place
        // projection, so no reference to the whole id is formed.
        unsafe { (&*addr_of!((*self.0).ev), &*addr_of!((*self.0).cond)) }
    }
    /// The fd of the id's current channel.
    pub fn fd(self) -> c_int {
        // SAFETY: an id's channel is live while the id is.
        unsafe { (*self.channel()).fd }
    }
    /// The transport of the id's device, if it has one.
    pub fn transport(self) -> Option<ibv_transport_type> {
        let v = self.verbs();
        if v.is_null() {
            return None;
        }
        // SAFETY: a bound id's context and its device are live.
        unsafe {
            let d = (*v).device;
            (!d.is_null()).then(|| (*d).transport_type)
        }
    }
    pub fn is_ud(self) -> bool {
        self.qp_type() == IBV_QPT_UD
    }
}

/// Getter and setter pairs for the id's `Copy` fields. Each call copies
/// one field out of, or into, the id through a raw place (`addr_of!`), so
/// no reference to the id or to the field is formed: nothing outlives the
/// call, and two accesses to one id (from two calls, or from the
/// application's C code between them) never hold overlapping `&mut`.
macro_rules! id_fields {
    ($($(#[$doc:meta])* $get:ident, $set:ident: $ty:ty = $($field:ident).+;)*) => {
        impl Id {
            $(
                $(#[$doc])*
                #[inline]
                pub fn $get(self) -> $ty {
                    // SAFETY: self.0 is a live IdPriv (alloc_id until
                    // free_id); the field is aligned (repr(C), not packed)
                    // and every bit pattern of it is valid (C data, or a
                    // value we stored); it is copied out by value.
                    unsafe { addr_of!((*self.0).$($field).+).read() }
                }
                #[inline]
                pub fn $set(self, v: $ty) {
                    // SAFETY: as for the getter; the old value is Copy, so
                    // overwriting it without dropping it is right.
                    unsafe { addr_of_mut!((*self.0).$($field).+).write(v) }
                }
            )*
        }
    };
}

id_fields! {
    // The public rdma_cm_id, which the application also reads and writes.
    verbs, set_verbs: *mut ibv_context = id.verbs;
    channel, set_channel: *mut rdma_event_channel = id.channel;
    context, set_context: *mut c_void = id.context;
    qp, set_qp: *mut ibv_qp = id.qp;
    ps, set_ps: rdma_port_space = id.ps;
    port_num, set_port_num: u8 = id.port_num;
    /// The event a synchronous call keeps on the id until the next one.
    event, set_event: *mut rdma_cm_event = id.event;
    send_cq_channel, set_send_cq_channel: *mut ibv_comp_channel = id.send_cq_channel;
    send_cq, set_send_cq: *mut ibv_cq = id.send_cq;
    recv_cq_channel, set_recv_cq_channel: *mut ibv_comp_channel = id.recv_cq_channel;
    recv_cq, set_recv_cq: *mut ibv_cq = id.recv_cq;
    srq, set_srq: *mut ibv_srq = id.srq;
    pd, set_pd: *mut ibv_pd = id.pd;
    qp_type, set_qp_type: ibv_qp_type = id.qp_type;
    /// `route.path_rec` (malloc'ed).
    path_rec, set_path_rec: *mut ibv_sa_path_rec = id.route.path_rec;
    num_paths, set_num_paths: c_int = id.route.num_paths;
    /// `route.addr.addr.ibaddr.sgid` (`addr` is a union of that one member).
    sgid, set_sgid: ibv_gid = id.route.addr.addr.ibaddr.sgid;
    dgid, set_dgid: ibv_gid = id.route.addr.addr.ibaddr.dgid;
    /// Big-endian.
    pkey, set_pkey: u16 = id.route.addr.addr.ibaddr.pkey;

    // librdmacm's private part.
    cma_dev, set_cma_dev: *mut CmaDevice = cma_dev;
    connect_error, set_connect_error: bool = connect_error;
    sync, set_sync: bool = sync;
    handle, set_handle: u32 = handle;
    initiator_depth, set_initiator_depth: u8 = initiator_depth;
    responder_resources, set_responder_resources: u8 = responder_resources;
    local_ece, set_local_ece: ibv_ece = local_ece;
    remote_ece, set_remote_ece: ibv_ece = remote_ece;
}

/// Scoped access to the id's private fields that own heap data (and so
/// cannot be copied in and out): `with_x(|x| ...)` lends `&mut` to that one
/// field for the closure's run only. The closure must not reach the same
/// field through the id again (they only ever do plain data work).
macro_rules! id_owned_fields {
    ($($(#[$doc:meta])* $with:ident: $ty:ty = $field:ident;)*) => {
        impl Id {
            $(
                $(#[$doc])*
                pub fn $with<R>(self, f: impl FnOnce(&mut $ty) -> R) -> R {
                    // SAFETY: self.0 is a live IdPriv; the reference covers
                    // this private field only (the application never sees
                    // it; other threads touch only `ev`) and lives only for
                    // the closure's run, during which nothing else borrows
                    // the field.
                    f(unsafe { &mut *addr_of_mut!((*self.0).$field) })
                }
            )*
        }
    };
}

id_owned_fields! {
    /// Private data prepended to the next connect (rdma_create_ep).
    with_connect: Vec<u8> = connect;
    /// QP to create on each request of a passive endpoint.
    with_qp_init_attr: Option<Box<ibv_qp_init_attr>> = qp_init_attr;
}

// ---------------------------------------------------------------------------
// Kernel handle -> id (for events of old kernels that report uid 0)
// ---------------------------------------------------------------------------

/// Highest handle upstream's index map can hold.
const IDX_MAX_INDEX: u32 = (1 << 16) - 1;

/// Handle -> id, a table indexed by handle (0 = no id), like upstream's
/// index map. The kernel hands out small, dense handles, so the table stays
/// short; a plain index replaces the hashing a HashMap did on every create,
/// destroy and connection request (about 400 instructions per insert,
/// measured with callgrind).
static IDM: Mutex<Vec<usize>> = Mutex::new(Vec::new());

fn insert_id(id: Id) {
    let h = id.handle();
    if h <= IDX_MAX_INDEX {
        let h = h as usize;
        let mut m = IDM.lock();
        if m.len() <= h {
            m.resize(h + 1, 0);
        }
        m[h] = id.0 as usize;
    }
}

fn remove_id(id: Id) {
    let h = id.handle();
    if h <= IDX_MAX_INDEX {
        if let Some(slot) = IDM.lock().get_mut(h as usize) {
            *slot = 0;
        }
    }
}

fn lookup_id(h: u32) -> Option<Id> {
    match IDM.lock().get(h as usize) {
        Some(&p) if p != 0 => Some(Id(p as *mut IdPriv)),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Event channels
// ---------------------------------------------------------------------------

/// `rdma_create_event_channel`.
pub fn create_event_channel() -> Res<*mut rdma_event_channel> {
    crate::cma::ucma_init()?;
    let fd = crate::ucma::open_channel_fd()?;
    Ok(Box::into_raw(Box::new(rdma_event_channel { fd })))
}

/// `rdma_destroy_event_channel`.
pub fn destroy_event_channel(ch: *mut rdma_event_channel) {
    // SAFETY: ch came from create_event_channel and is destroyed once.
    let ch = unsafe { Box::from_raw(ch) };
    // SAFETY: closing the channel's own fd.
    unsafe { libc::close(ch.fd) };
}

// ---------------------------------------------------------------------------
// Ids
// ---------------------------------------------------------------------------

/// Allocates an id on `channel` (a private one when null). Only the
/// channel's creation can fail.
pub fn alloc_id(
    channel: *mut rdma_event_channel,
    context: *mut c_void,
    ps: rdma_port_space,
    qp_type: ibv_qp_type,
) -> Res<Id> {
    let (channel, sync) = if channel.is_null() {
        (create_event_channel()?, true)
    } else {
        (channel, false)
    };
    // SAFETY: all-zero is a valid rdma_cm_id (pointers null, ints 0).
    let mut id: rdma_cm_id = unsafe { core::mem::zeroed() };
    id.context = context;
    id.ps = ps;
    id.qp_type = qp_type;
    id.channel = channel;
    let p = Box::new(IdPriv {
        id,
        cma_dev: null_mut(),
        connect: Vec::new(),
        connect_error: false,
        sync,
        handle: u32::MAX,
        qp_init_attr: None,
        initiator_depth: 0,
        responder_resources: 0,
        local_ece: ibv_ece { vendor_id: 0, options: 0, comp_mask: 0 },
        remote_ece: ibv_ece { vendor_id: 0, options: 0, comp_mask: 0 },
        ev: Mutex::new(EvState { events_completed: 0, mc_list: Vec::new() }),
        cond: Condvar::new(),
    });
    Ok(Id(Box::into_raw(p)))
}

/// Frees an id and what it owns (`ucma_free_id`).
pub fn free_id(id: Id) {
    remove_id(id);
    let dev = id.cma_dev();
    if !dev.is_null() {
        crate::devices::put_device(dev);
    }
    let paths = id.path_rec();
    if !paths.is_null() {
        // SAFETY: path records are malloc'ed by the route queries.
        unsafe { libc::free(paths.cast()) };
    }
    if id.sync() {
        destroy_event_channel(id.channel());
    }
    // SAFETY: the id came from Box::into_raw in alloc_id; this is its end.
    drop(unsafe { Box::from_raw(id.0) });
}

/// `rdma_create_id2`: an id with an explicit QP type.
pub fn create_id2(
    channel: *mut rdma_event_channel,
    context: *mut c_void,
    ps: rdma_port_space,
    qp_type: ibv_qp_type,
) -> Res<Id> {
    crate::cma::ucma_init()?;
    // Upstream reports any allocation failure, including that of a private
    // channel, as ENOMEM.
    let id = alloc_id(channel, context, ps, qp_type).map_err(|_| libc::ENOMEM)?;
    let mut resp = rdma_ucm_create_id_resp::default();
    let body = rdma_ucm_create_id {
        uid: id.0 as u64,
        response: uaddr(&mut resp),
        ps: ps as u16,
        qp_type: qp_type as u8,
        reserved: [0; 5],
    };
    if let Err(e) = write_cmd_resp(id.fd(), RDMA_USER_CM_CMD_CREATE_ID, body, &mut resp) {
        free_id(id);
        return Err(e);
    }
    id.set_handle(resp.id);
    insert_id(id);
    Ok(id)
}

/// The QP type upstream derives from the port space.
pub fn qp_type_for(ps: rdma_port_space) -> ibv_qp_type {
    if ps == RDMA_PS_IPOIB || ps == RDMA_PS_UDP {
        IBV_QPT_UD
    } else {
        IBV_QPT_RC
    }
}

/// DESTROY_ID: the number of events the kernel delivered for the id.
pub fn destroy_kern_id(fd: c_int, handle: u32) -> Res<u32> {
    let mut resp = rdma_ucm_destroy_id_resp::default();
    let body = rdma_ucm_destroy_id { response: uaddr(&mut resp), id: handle, reserved: 0 };
    write_cmd_resp(fd, RDMA_USER_CM_CMD_DESTROY_ID, body, &mut resp)?;
    Ok(resp.events_reported)
}

/// Blocks until `done(state)` holds.
fn wait_events(id: Id, done: impl Fn(&EvState) -> bool) {
    let (m, cv) = id.ev();
    let mut g = m.lock();
    while !done(&g) {
        cv.wait(&mut g);
    }
}

/// `rdma_destroy_id`.
pub fn destroy_id(id: Id) -> Res<()> {
    let reported = destroy_kern_id(id.fd(), id.handle())?;
    let ev = id.event();
    if !ev.is_null() {
        ack_cm_event(ev)?;
    }
    wait_events(id, |s| s.events_completed >= u64::from(reported));
    free_id(id);
    Ok(())
}

/// `rdma_migrate_id`: moves the id to `channel` (a new private one when
/// null).
pub fn migrate_id(id: Id, channel: *mut rdma_event_channel) -> Res<()> {
    if id.sync() && channel.is_null() {
        return Err(libc::EINVAL);
    }
    let sync = channel.is_null();
    let channel = if sync { create_event_channel()? } else { channel };
    let mut resp = rdma_ucm_migrate_resp::default();
    let body = rdma_ucm_migrate_id { response: uaddr(&mut resp), id: id.handle(), fd: id.fd() as u32 };
    // SAFETY: channel is live (ours or the caller's).
    let fd = unsafe { (*channel).fd };
    if let Err(e) = write_cmd_resp(fd, RDMA_USER_CM_CMD_MIGRATE_ID, body, &mut resp) {
        if sync {
            destroy_event_channel(channel);
        }
        return Err(e);
    }
    if id.sync() {
        let ev = id.event();
        if !ev.is_null() {
            let _ = ack_cm_event(ev);
            id.set_event(null_mut());
        }
        destroy_event_channel(id.channel());
    }
    id.set_sync(sync);
    id.set_channel(channel);
    // Events already delivered on the old channel must be acked first.
    let (m, cv) = id.ev();
    let mut g = m.lock();
    while g.events_completed < u64::from(resp.events_reported) {
        cv.wait(&mut g);
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------

fn complete_event(id: Id) {
    let (m, cv) = id.ev();
    m.lock().events_completed += 1;
    cv.notify_all();
}

fn complete_mc_event(mc: *mut Mcast) {
    // SAFETY: a group with an outstanding event is live (leave waits).
    let id = Id(unsafe { (*mc).id_priv });
    let (m, cv) = id.ev();
    let mut g = m.lock();
    // SAFETY: the group's counter is only touched under this lock.
    unsafe { (*mc).events_completed += 1 };
    g.events_completed += 1;
    drop(g);
    cv.notify_all();
}

/// `rdma_ack_cm_event`.
pub fn ack_cm_event(event: *mut rdma_cm_event) -> Res<()> {
    if event.is_null() {
        return Err(libc::EINVAL);
    }
    // SAFETY: events are the first field of a CmaEvent we allocated.
    let evt = unsafe { Box::from_raw(event.cast::<CmaEvent>()) };
    if !evt.mc.is_null() {
        complete_mc_event(evt.mc);
    } else {
        complete_event(Id(evt.id_priv));
    }
    Ok(())
}

/// `ucma_complete`: for synchronous ids, waits for the id's next event and
/// turns a failure status into an errno.
pub fn complete(id: Id) -> Res<()> {
    if !id.sync() {
        return Ok(());
    }
    let old = id.event();
    if !old.is_null() {
        let _ = ack_cm_event(old);
        id.set_event(null_mut());
    }
    let event = get_cm_event(id.channel())?;
    id.set_event(event);
    // SAFETY: just returned by get_cm_event; the event is not the id.
    let ev = unsafe { &*event };
    if ev.status != 0 {
        return Err(if ev.event == RDMA_CM_EVENT_REJECTED {
            libc::ECONNREFUSED
        } else if ev.status < 0 {
            -ev.status
        } else {
            ev.status
        });
    }
    Ok(())
}

/// 0, or -1 with errno set: how upstream stores a failed step in `status`.
fn status_of(r: Res<()>) -> c_int {
    ret_int(r)
}

fn copy_conn_event(evt: &mut CmaEvent, src: &rdma_ucm_conn_param) {
    let pd = evt.private_data.as_ptr();
    // SAFETY: writing the conn member of the event's param union.
    let dst = unsafe { &mut evt.event.param.conn };
    dst.private_data_len = src.private_data_len;
    if src.private_data_len != 0 {
        dst.private_data = pd.cast();
        let n = src.private_data_len as usize;
        evt.private_data[..n].copy_from_slice(&src.private_data[..n]);
    }
    // SAFETY: as above.
    let dst = unsafe { &mut evt.event.param.conn };
    dst.responder_resources = src.responder_resources;
    dst.initiator_depth = src.initiator_depth;
    dst.flow_control = src.flow_control;
    dst.retry_count = src.retry_count;
    dst.rnr_retry_count = src.rnr_retry_count;
    dst.srq = src.srq;
    dst.qp_num = src.qp_num;
}

fn copy_ud_event(evt: &mut CmaEvent, src: &rdma_ucm_ud_param) {
    let pd = evt.private_data.as_ptr();
    // SAFETY: writing the ud member of the event's param union.
    let dst = unsafe { &mut evt.event.param.ud };
    dst.private_data_len = src.private_data_len;
    if src.private_data_len != 0 {
        dst.private_data = pd.cast();
        let n = src.private_data_len as usize;
        evt.private_data[..n].copy_from_slice(&src.private_data[..n]);
    }
    // SAFETY: as above.
    let dst = unsafe { &mut evt.event.param.ud };
    let mut ah = src.ah_attr;
    // SAFETY: both are valid, properly typed AH attribute structs.
    unsafe { crate::verbs::ibv_copy_ah_attr_from_kern(&mut dst.ah_attr, &mut ah) };
    dst.qp_num = src.qp_num;
    dst.qkey = src.qkey;
}

fn process_addr_resolved(evt: &mut CmaEvent) {
    let id = Id(evt.id_priv);
    let r = if crate::cma::af_ib_support() {
        crate::addr::query_addr(id).and_then(|()| {
            if id.transport() == Some(IBV_TRANSPORT_IB) {
                crate::addr::query_gid(id)
            } else {
                Ok(())
            }
        })
    } else {
        crate::addr::query_route(id)
    };
    evt.event.status = status_of(r);
    if evt.event.status != 0 {
        evt.event.event = RDMA_CM_EVENT_ADDR_ERROR;
    }
}

fn process_route_resolved(evt: &mut CmaEvent) {
    let id = Id(evt.id_priv);
    if id.transport() != Some(IBV_TRANSPORT_IB) {
        return;
    }
    let r = if crate::cma::af_ib_support() {
        crate::addr::query_path(id)
    } else {
        crate::addr::query_route(id)
    };
    evt.event.status = status_of(r);
    if evt.event.status != 0 {
        evt.event.event = RDMA_CM_EVENT_ROUTE_ERROR;
    }
}

fn query_req_info(id: Id) -> Res<()> {
    if !crate::cma::af_ib_support() {
        return crate::addr::query_route(id);
    }
    crate::addr::query_addr(id)?;
    crate::addr::query_gid(id)?;
    crate::addr::query_path(id)
}

/// A connection request: creates the new id the request is for.
fn process_conn_req(evt: &mut CmaEvent, handle: u32, ece: &rdma_ucm_ece) -> Res<()> {
    let listen = Id(evt.id_priv);
    let new = match alloc_id(listen.channel(), listen.context(), listen.ps(), listen.qp_type()) {
        Ok(n) => n,
        Err(_) => {
            let _ = destroy_kern_id(listen.fd(), handle);
            complete_event(listen);
            return Err(libc::ENOMEM);
        }
    };
    evt.event.listen_id = listen.cm();
    evt.event.id = new.cm();
    new.set_handle(handle);
    insert_id(new);
    // SAFETY: reading the conn member, as upstream does for every request.
    let (init, resp) = unsafe { (evt.event.param.conn.initiator_depth, evt.event.param.conn.responder_resources) };
    new.set_initiator_depth(init);
    new.set_responder_resources(resp);
    new.set_remote_ece(ibv_ece { vendor_id: ece.vendor_id, options: ece.attr_mod, ..new.remote_ece() });

    let r = (|| {
        if listen.sync() {
            migrate_id(new, null_mut())?;
        }
        query_req_info(new)
    })();
    if let Err(e) = r {
        let _ = destroy_id(new);
        complete_event(listen);
        return Err(e);
    }
    Ok(())
}

fn warn_unmatched() {
    // SAFETY: constant NUL-terminated format and argument.
    unsafe {
        libc::syslog(
            libc::LOG_WARNING,
            c"%s".as_ptr(),
            c"librdmacm: Warning: discarding unmatched event - rdma_destroy_id may hang.\n".as_ptr(),
        )
    };
}

/// `rdma_get_cm_event`.
pub fn get_cm_event(channel: *mut rdma_event_channel) -> Res<*mut rdma_cm_event> {
    // SAFETY: channel is live (checked non-null by the caller).
    let fd = unsafe { (*channel).fd };
    // SAFETY: all-zero is a valid CmaEvent (pointers null, ints 0).
    let mut evt: Box<CmaEvent> = Box::new(unsafe { core::mem::zeroed() });
    loop {
        // Zeroed: an older kernel may fill only a prefix.
        // SAFETY: all-zero is a valid response buffer.
        let mut resp: rdma_ucm_event_resp = unsafe { core::mem::zeroed() };
        let body = rdma_ucm_get_event { response: uaddr(&mut resp) };
        write_cmd_resp(fd, RDMA_USER_CM_CMD_GET_EVENT, body, &mut resp)?;
        if translate_event(&mut evt, &resp) {
            return Ok(&mut Box::leak(evt).event);
        }
        // A skipped event may have filled some fields: start clean.
        // SAFETY: all-zero is a valid CmaEvent.
        *evt = unsafe { core::mem::zeroed() };
    }
}

/// Fills `evt` from a kernel event; false when the event is to be skipped
/// (and the next one read).
pub fn translate_event(evt: &mut CmaEvent, resp: &rdma_ucm_event_resp) -> bool {
    evt.event.event = resp.event;
    // Events carry our uid, except connection requests on some old kernels
    // (and a kernel bug reporting uid 0): look those up by handle; only an
    // ESTABLISHED event is worth keeping then.
    let id = if resp.uid != 0 {
        Id(resp.uid as *mut IdPriv)
    } else {
        let Some(id) = lookup_id(resp.id) else {
            warn_unmatched();
            return false;
        };
        if resp.event != RDMA_CM_EVENT_ESTABLISHED {
            complete_event(id);
            return false;
        }
        id
    };
    evt.id_priv = id.0;
    evt.event.id = id.cm();
    evt.event.status = resp.status as c_int;

    // SAFETY (all param reads below): the union holds whichever member the
    // event type says; both members are plain bytes.
    match resp.event {
        RDMA_CM_EVENT_ADDR_RESOLVED => process_addr_resolved(evt),
        RDMA_CM_EVENT_ROUTE_RESOLVED => process_route_resolved(evt),
        RDMA_CM_EVENT_CONNECT_REQUEST => {
            evt.id_priv = resp.uid as *mut IdPriv;
            let listen = Id(evt.id_priv);
            if listen.is_ud() {
                // SAFETY: see above.
                copy_ud_event(evt, unsafe { &resp.param.ud });
            } else {
                // SAFETY: see above.
                copy_conn_event(evt, unsafe { &resp.param.conn });
            }
            if process_conn_req(evt, resp.id, &resp.ece).is_err() {
                return false;
            }
        }
        RDMA_CM_EVENT_CONNECT_RESPONSE => {
            // SAFETY: see above.
            copy_conn_event(evt, unsafe { &resp.param.conn });
            if id.qp().is_null() {
                evt.event.event = RDMA_CM_EVENT_CONNECT_RESPONSE;
                id.set_remote_ece(ibv_ece {
                    vendor_id: resp.ece.vendor_id,
                    options: resp.ece.attr_mod,
                    ..id.remote_ece()
                });
            } else {
                evt.event.status = crate::qp::process_conn_resp_ece(id, &resp.ece);
                if evt.event.status == 0 {
                    evt.event.event = RDMA_CM_EVENT_ESTABLISHED;
                } else {
                    evt.event.event = RDMA_CM_EVENT_CONNECT_ERROR;
                    id.set_connect_error(true);
                }
            }
        }
        RDMA_CM_EVENT_ESTABLISHED => {
            if id.is_ud() {
                // SAFETY: see above.
                copy_ud_event(evt, unsafe { &resp.param.ud });
            } else {
                // SAFETY: see above.
                copy_conn_event(evt, unsafe { &resp.param.conn });
            }
        }
        RDMA_CM_EVENT_REJECTED => {
            if id.connect_error() {
                complete_event(id);
                return false;
            }
            // SAFETY: see above.
            copy_conn_event(evt, unsafe { &resp.param.conn });
            let _ = crate::qp::modify_qp_err(id);
        }
        RDMA_CM_EVENT_DISCONNECTED => {
            if id.connect_error() {
                complete_event(id);
                return false;
            }
            // SAFETY: see above.
            copy_conn_event(evt, unsafe { &resp.param.conn });
        }
        RDMA_CM_EVENT_MULTICAST_JOIN | RDMA_CM_EVENT_MULTICAST_ERROR => {
            let mc = resp.uid as *mut Mcast;
            evt.mc = mc;
            // SAFETY: the kernel echoes the uid we gave JOIN: a live group.
            let m = unsafe { &mut *mc };
            evt.id_priv = m.id_priv;
            evt.event.id = Id(m.id_priv).cm();
            if resp.event == RDMA_CM_EVENT_MULTICAST_JOIN {
                // SAFETY: see above.
                copy_ud_event(evt, unsafe { &resp.param.ud });
                evt.event.param.ud.private_data = m.context;
                evt.event.status = crate::mcast::process_join(evt);
                if evt.event.status != 0 {
                    evt.event.event = RDMA_CM_EVENT_MULTICAST_ERROR;
                }
            } else {
                evt.event.param.ud.private_data = m.context;
            }
        }
        _ => {
            if id.is_ud() {
                // SAFETY: see above.
                copy_ud_event(evt, unsafe { &resp.param.ud });
            } else {
                // SAFETY: see above.
                copy_conn_event(evt, unsafe { &resp.param.conn });
            }
        }
    }
    true
}

// ---------------------------------------------------------------------------
// Exports
// ---------------------------------------------------------------------------

crate::export! {
    /// Opens a new event channel on the rdma_cm device.
    fn rdma_create_event_channel() -> *mut rdma_event_channel, on_panic = null_mut();
    {
        create_event_channel().unwrap_or_else(|e| {
            set_errno(e);
            null_mut()
        })
    }
}

crate::export! {
    /// Closes and frees an event channel.
    fn rdma_destroy_event_channel(channel: *mut rdma_event_channel) -> (), on_panic = ();
    {
        crate::ensure!(!channel.is_null(), libc::EINVAL, ());
        destroy_event_channel(channel)
    }
}

crate::export! {
    /// Creates an id in port space `ps` (QP type from the port space).
    fn rdma_create_id(channel: *mut rdma_event_channel, id: *mut *mut rdma_cm_id,
                      context: *mut c_void, ps: rdma_port_space) -> c_int, on_panic = -1;
    {
        crate::ensure!(!id.is_null(), libc::EINVAL, -1);
        match create_id2(channel, context, ps, qp_type_for(ps)) {
            Ok(n) => {
                // SAFETY: id is a valid out-pointer (checked non-null).
                unsafe { *id = n.cm() };
                0
            }
            Err(e) => ret_int(Err(e)),
        }
    }
}

crate::export! {
    /// Destroys an id after its delivered events have been acked.
    fn rdma_destroy_id(id: *mut rdma_cm_id) -> c_int, on_panic = -1;
    {
        crate::ensure!(!id.is_null(), libc::EINVAL, -1);
        ret_int(destroy_id(Id::from_cm(id)))
    }
}

crate::export! {
    /// Moves an id to another event channel (a private one when null).
    fn rdma_migrate_id(id: *mut rdma_cm_id, channel: *mut rdma_event_channel) -> c_int, on_panic = -1;
    {
        crate::ensure!(!id.is_null(), libc::EINVAL, -1);
        ret_int(migrate_id(Id::from_cm(id), channel))
    }
}

crate::export! {
    /// Waits for (or, on a non-blocking channel, fetches) the next event.
    fn rdma_get_cm_event(channel: *mut rdma_event_channel, event: *mut *mut rdma_cm_event) -> c_int, on_panic = -1;
    {
        if let Err(e) = crate::cma::ucma_init() {
            return ret_int(Err(e));
        }
        crate::ensure!(!event.is_null() && !channel.is_null(), libc::EINVAL, -1);
        match get_cm_event(channel) {
            Ok(ev) => {
                // SAFETY: event is a valid out-pointer (checked non-null).
                unsafe { *event = ev };
                0
            }
            Err(e) => ret_int(Err(e)),
        }
    }
}

crate::export! {
    /// Releases an event.
    fn rdma_ack_cm_event(event: *mut rdma_cm_event) -> c_int, on_panic = -1;
    {
        ret_int(ack_cm_event(event))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An id on a stand-in channel (never written to by these tests).
    fn fake_id(ch: &mut rdma_event_channel, qp_type: ibv_qp_type) -> Id {
        let id = alloc_id(ch, 0x5a as *mut c_void, RDMA_PS_TCP, qp_type).unwrap();
        id.set_handle(77);
        id
    }

    fn resp(uid: u64, event: rdma_cm_event_type, status: i32) -> rdma_ucm_event_resp {
        // SAFETY: all-zero is a valid response.
        let mut r: rdma_ucm_event_resp = unsafe { core::mem::zeroed() };
        r.uid = uid;
        r.id = 77;
        r.event = event;
        r.status = status as u32;
        r
    }

    fn new_evt() -> Box<CmaEvent> {
        // SAFETY: all-zero is a valid CmaEvent.
        Box::new(unsafe { core::mem::zeroed() })
    }

    fn completed(id: Id) -> u64 {
        id.ev().0.lock().events_completed
    }

    #[test]
    fn established_event_carries_the_connection_parameters_and_private_data() {
        let mut ch = rdma_event_channel { fd: -1 };
        let id = fake_id(&mut ch, IBV_QPT_RC);
        let mut r = resp(id.0 as u64, RDMA_CM_EVENT_ESTABLISHED, 0);
        // SAFETY: writing the conn member of the response union.
        let c = unsafe { &mut r.param.conn };
        c.private_data[..5].copy_from_slice(b"hello");
        c.private_data_len = 5;
        c.responder_resources = 4;
        c.initiator_depth = 3;
        c.flow_control = 1;
        c.retry_count = 6;
        c.rnr_retry_count = 5;
        c.srq = 1;
        c.qp_num = 0x1234;
        let mut evt = new_evt();
        assert!(translate_event(&mut evt, &r));
        assert_eq!(evt.event.event, RDMA_CM_EVENT_ESTABLISHED);
        assert_eq!(evt.event.id, id.cm());
        assert!(evt.event.listen_id.is_null());
        assert_eq!(evt.event.status, 0);
        // SAFETY: the conn member was filled.
        let p = unsafe { evt.event.param.conn };
        assert_eq!(p.private_data_len, 5);
        assert_eq!(p.private_data, evt.private_data.as_ptr().cast());
        assert_eq!(&evt.private_data[..5], b"hello");
        assert_eq!((p.responder_resources, p.initiator_depth, p.flow_control), (4, 3, 1));
        assert_eq!((p.retry_count, p.rnr_retry_count, p.srq, p.qp_num), (6, 5, 1, 0x1234));
        // Acking counts the event on the id.
        ack_cm_event(&mut Box::leak(evt).event).unwrap();
        assert_eq!(completed(id), 1);
        free_id(id);
    }

    #[test]
    fn status_is_the_kernels_signed_value_and_empty_private_data_stays_null() {
        let mut ch = rdma_event_channel { fd: -1 };
        let id = fake_id(&mut ch, IBV_QPT_RC);
        let r = resp(id.0 as u64, RDMA_CM_EVENT_UNREACHABLE, -libc::ETIMEDOUT);
        let mut evt = new_evt();
        assert!(translate_event(&mut evt, &r));
        assert_eq!(evt.event.event, RDMA_CM_EVENT_UNREACHABLE);
        assert_eq!(evt.event.status, -libc::ETIMEDOUT);
        // SAFETY: the conn member was filled.
        let p = unsafe { evt.event.param.conn };
        assert!(p.private_data.is_null());
        assert_eq!(p.private_data_len, 0);
        free_id(id);
    }

    #[test]
    fn connect_response_without_qp_is_passed_up_with_the_peers_ece() {
        let mut ch = rdma_event_channel { fd: -1 };
        let id = fake_id(&mut ch, IBV_QPT_RC);
        let mut r = resp(id.0 as u64, RDMA_CM_EVENT_CONNECT_RESPONSE, 0);
        r.ece = rdma_ucm_ece { vendor_id: 0x02c9, attr_mod: 0x11 };
        let mut evt = new_evt();
        assert!(translate_event(&mut evt, &r));
        assert_eq!(evt.event.event, RDMA_CM_EVENT_CONNECT_RESPONSE);
        assert_eq!(id.remote_ece().vendor_id, 0x02c9);
        assert_eq!(id.remote_ece().options, 0x11);
        free_id(id);
    }

    #[test]
    fn events_after_a_failed_connect_are_swallowed_and_counted() {
        let mut ch = rdma_event_channel { fd: -1 };
        let id = fake_id(&mut ch, IBV_QPT_RC);
        id.set_connect_error(true);
        let mut evt = new_evt();
        assert!(!translate_event(&mut evt, &resp(id.0 as u64, RDMA_CM_EVENT_REJECTED, 28)));
        assert!(!translate_event(&mut evt, &resp(id.0 as u64, RDMA_CM_EVENT_DISCONNECTED, 0)));
        assert_eq!(completed(id), 2, "both skipped events count as acked");
        id.set_connect_error(false);
        assert!(translate_event(&mut evt, &resp(id.0 as u64, RDMA_CM_EVENT_DISCONNECTED, 0)));
        free_id(id);
    }

    #[test]
    fn uid_zero_events_are_matched_by_handle_and_only_established_kept() {
        let mut ch = rdma_event_channel { fd: -1 };
        let id = fake_id(&mut ch, IBV_QPT_RC);
        id.set_handle(4242);
        insert_id(id);
        let mut r = resp(0, RDMA_CM_EVENT_DISCONNECTED, 0);
        r.id = 4242;
        let mut evt = new_evt();
        assert!(!translate_event(&mut evt, &r));
        assert_eq!(completed(id), 1);
        r.event = RDMA_CM_EVENT_ESTABLISHED;
        assert!(translate_event(&mut evt, &r));
        assert_eq!(evt.event.id, id.cm());
        // Unknown handle: dropped (with a syslog warning), nothing counted.
        r.id = 4243;
        assert!(!translate_event(&mut evt, &r));
        assert_eq!(completed(id), 1);
        free_id(id);
        assert!(lookup_id(4242).is_none());
    }

    #[test]
    fn handle_table_grows_reuses_slots_and_ignores_big_handles() {
        let mut ch = rdma_event_channel { fd: -1 };
        let a = fake_id(&mut ch, IBV_QPT_RC);
        let b = fake_id(&mut ch, IBV_QPT_RC);
        a.set_handle(3001);
        insert_id(a);
        assert_eq!(lookup_id(3001), Some(a));
        assert_eq!(lookup_id(3000), None, "slots below a handle start empty");
        assert_eq!(lookup_id(60_000), None, "beyond the table: no id");
        remove_id(a);
        assert_eq!(lookup_id(3001), None);
        // The kernel reuses handles: the slot takes the new id.
        b.set_handle(3001);
        insert_id(b);
        assert_eq!(lookup_id(3001), Some(b));
        // Handles past upstream's index map are never recorded.
        a.set_handle(IDX_MAX_INDEX + 1);
        insert_id(a);
        assert_eq!(lookup_id(IDX_MAX_INDEX + 1), None);
        free_id(a);
        free_id(b);
        assert_eq!(lookup_id(3001), None);
    }

    #[test]
    fn multicast_errors_carry_the_join_context() {
        let mut ch = rdma_event_channel { fd: -1 };
        let id = fake_id(&mut ch, IBV_QPT_UD);
        let mc = Box::into_raw(Box::new(Mcast {
            id_priv: id.0,
            context: 0x77 as *mut c_void,
            events_completed: 0,
            handle: 1,
            // SAFETY: all-zero is a valid GID.
            mgid: unsafe { core::mem::zeroed() },
            mlid: 0,
            join_flags: 0,
            addr: zeroed(),
        }));
        let mut evt = new_evt();
        assert!(translate_event(&mut evt, &resp(mc as u64, RDMA_CM_EVENT_MULTICAST_ERROR, -libc::ENETUNREACH)));
        assert_eq!(evt.event.id, id.cm());
        assert_eq!(evt.mc, mc);
        // SAFETY: the ud member was filled.
        assert_eq!(unsafe { evt.event.param.ud.private_data }, 0x77 as *const c_void);
        ack_cm_event(&mut Box::leak(evt).event).unwrap();
        // SAFETY: mc is ours.
        assert_eq!(unsafe { (*mc).events_completed }, 1);
        assert_eq!(completed(id), 1);
        // SAFETY: mc came from Box::into_raw above.
        drop(unsafe { Box::from_raw(mc) });
        free_id(id);
    }

    #[test]
    fn qp_type_follows_the_port_space() {
        assert_eq!(qp_type_for(RDMA_PS_TCP), IBV_QPT_RC);
        assert_eq!(qp_type_for(RDMA_PS_IB), IBV_QPT_RC);
        assert_eq!(qp_type_for(RDMA_PS_UDP), IBV_QPT_UD);
        assert_eq!(qp_type_for(RDMA_PS_IPOIB), IBV_QPT_UD);
    }

    /// On this machine there is no rdma_cm device and no RDMA device: the
    /// exported entry points fail the way Debian's librdmacm does.
    #[test]
    fn entry_points_without_rdma_fail_like_upstream() {
        if std::path::Path::new("/dev/infiniband/rdma_cm").exists() {
            return;
        }
        // SAFETY: calling our own exports with valid or null arguments.
        unsafe {
            set_errno(0);
            assert!(rdma_create_event_channel().is_null());
            assert_eq!(errno(), libc::ENODEV);
            let mut id: *mut rdma_cm_id = null_mut();
            set_errno(0);
            assert_eq!(rdma_create_id(null_mut(), &mut id, null_mut(), RDMA_PS_TCP), -1);
            assert_eq!(errno(), libc::ENODEV);
            assert!(id.is_null());
            let mut n = 5;
            set_errno(0);
            assert!(crate::devices::rdma_get_devices(&mut n).is_null());
            assert_eq!((n, errno()), (0, libc::ENODEV));
            let mut ev: *mut rdma_cm_event = null_mut();
            set_errno(0);
            assert_eq!(rdma_get_cm_event(null_mut(), &mut ev), -1);
            assert_eq!(errno(), libc::ENODEV);
            set_errno(0);
            assert_eq!(rdma_ack_cm_event(null_mut()), -1);
            assert_eq!(errno(), libc::EINVAL);
            set_errno(0);
            assert_eq!(rdma_destroy_id(null_mut()), -1);
            assert_eq!(errno(), libc::EINVAL);
        }
    }
}
