//! Event delivery: reading the kernel's events (GET_EVENT), turning each
//! into the `rdma_cm_event` the application sees, and the work some events
//! bring with them (queries after address and route resolution, the new id
//! of a connection request, the QP transitions of a connect reply, the QP's
//! attachment to a joined multicast group, the service records behind an
//! ADDRINFO_RESOLVED); and, for synchronous ids, the wait for an
//! operation's own event (`complete`, `export_sync!`).
//!
//! rdma-core 65's events (RDMACM_1.4): an application writes USER events
//! to its own channel (rdma_write_cm_event, here) and reads them back with
//! their status and `param.arg`; rdma_resolve_addrinfo (`resolve_ai`)
//! writes an INTERNAL one, read as ADDRINFO_RESOLVED. Kernels without the
//! WRITE_CM_EVENT command (Linux 6.1) refuse both writes with EINVAL.
//!
//! This sits above the modules whose work it dispatches (`addr`, `qp`) and
//! below the operations that wait (`resolve`, `mcast`, `conn`, `ep`) and the
//! entry points that first initialise the library (`cma`).

use crate::abi::cma::*;
use crate::abi::ucma::*;
use crate::abi::verbs::*;
use crate::id::{
    ack_held_event, alloc_id, complete_event, destroy_id, destroy_kern_id, insert_id, lookup_id, migrate_id, ret_int,
    CmaEvent, Id, IdPriv, Mcast, Res,
};
use core::ffi::{c_int, c_void};
use core::mem::MaybeUninit;
use core::ptr::{addr_of, addr_of_mut, null_mut};

/// `ucma_complete`: for synchronous ids, waits for the id's next event and
/// turns a failure status into an errno. Inside [`deferring`] the first
/// call leaves the wait to the export (see [`export_sync!`]).
pub(crate) fn complete(id: Id) -> Res<()> {
    if !id.sync() {
        return Ok(());
    }
    ack_held_event(id);
    if DEFER.with(|d| d.replace(false)) {
        DEFERRED.with(|p| p.set(id.0));
        return Ok(());
    }
    // SAFETY: a synchronous id's private channel lives as long as the id.
    let event = unsafe { get_cm_event(id.channel()) }?;
    // SAFETY: the event just returned.
    unsafe { complete_finish(id, event) }
}

/// The end of [`complete`] once the id's event came.
///
/// # Safety
/// `event` is the live event the wait on `id`'s channel returned.
pub(crate) unsafe fn complete_finish(id: Id, event: *mut rdma_cm_event) -> Res<()> {
    id.set_event(event);
    // SAFETY: just returned by the wait; the event is not the id.
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

thread_local! {
    /// Set by [`deferring`]: the next [`complete`] of a synchronous id
    /// leaves its wait to the export.
    static DEFER: core::cell::Cell<bool> = const { core::cell::Cell::new(false) };
    /// The id whose wait [`complete`] left.
    static DEFERRED: core::cell::Cell<*mut IdPriv> = const { core::cell::Cell::new(null_mut()) };
}

/// Runs an export's operation (`op`), whose last step is [`complete`],
/// with that step's wait left out: the id and the wait begun when there is
/// one to make (a synchronous id), for the export to make it where a
/// cancellation may unwind (see [`export_sync!`]).
pub(crate) fn deferring(op: impl FnOnce() -> Res<()>) -> Res<Option<(Id, EventWait)>> {
    DEFER.with(|d| d.set(true));
    DEFERRED.with(|p| p.set(null_mut()));
    let r = op();
    DEFER.with(|d| d.set(false));
    let id = DEFERRED.with(|p| p.replace(null_mut()));
    r?;
    if id.is_null() {
        return Ok(None);
    }
    let id = Id(id);
    // SAFETY: a synchronous id's private channel lives as long as the id.
    Ok(Some((id, unsafe { EventWait::new(id.channel()) }?)))
}

/// An export whose operation ends, for a synchronous id (one made without
/// an event channel), in a wait for the id's event (upstream's
/// `ucma_complete`). The body, returning `Res<()>`, runs under the guard
/// through [`deferring`]; the wait runs in the export's own frame, a
/// cancellation point as upstream's (see `ffi::cancellable`); the event is
/// taken in under the guard again.
macro_rules! export_sync {
    (
        $(#[$meta:meta])*
        fn $name:ident ( $($arg:ident : $ty:ty),* $(,)? ) -> c_int;
        $body:block
    ) => {
        $(#[$meta])*
        ///
        /// # Safety
        /// As the librdmacm function of the same name.
        #[no_mangle]
        pub unsafe extern "C-unwind" fn $name($($arg: $ty),*) -> c_int {
            const NAME: &str = stringify!($name);
            let begun = ::rdma_util::ffi::guard($crate::LIB_NAME, NAME, Err(libc::EIO), move || {
                $crate::event::deferring(move || -> $crate::id::Res<()> { $body })
            });
            let (id, w) = match begun {
                Ok(Some(v)) => v,
                Ok(None) => return 0,
                Err(e) => return $crate::id::ret_int(Err(e)),
            };
            // SAFETY: w is fresh; this frame holds nothing with a destructor.
            match unsafe { $crate::event::wait_event_cancellable(NAME, w) } {
                Ok(ev) => $crate::id::ret_int(::rdma_util::ffi::guard($crate::LIB_NAME, NAME, Err(libc::EIO), move || {
                    // SAFETY: the event the wait returned.
                    unsafe { $crate::event::complete_finish(id, ev) }
                })),
                Err(e) => $crate::id::ret_int(Err(e)),
            }
        }
    };
}
pub(crate) use export_sync;

/// 0, or -1 with errno set: how upstream stores a failed step in `status`.
fn status_of(r: Res<()>) -> c_int {
    ret_int(r)
}

/// Takes the kernel's private data into the event's buffer and returns
/// where the event's param is to point: the buffer, or NULL (as upstream
/// leaves it) when there is none. The whole buffer is copied: past the
/// data's length the kernel's copy is zero, as upstream's (memset) buffer is.
fn attach_private_data(evt: &mut CmaEvent, len: u8, data: &[u8; RDMA_MAX_PRIVATE_DATA]) -> *mut c_void {
    if len == 0 {
        return null_mut();
    }
    evt.private_data.write(*data).as_mut_ptr().cast()
}

fn copy_conn_event(evt: &mut CmaEvent, src: &rdma_ucm_conn_param) {
    let pd = attach_private_data(evt, src.private_data_len, &src.private_data);
    // SAFETY: writing the conn member of the event's param union.
    let dst = unsafe { &mut evt.event.param.conn };
    dst.private_data = pd;
    dst.private_data_len = src.private_data_len;
    dst.responder_resources = src.responder_resources;
    dst.initiator_depth = src.initiator_depth;
    dst.flow_control = src.flow_control;
    dst.retry_count = src.retry_count;
    dst.rnr_retry_count = src.rnr_retry_count;
    dst.srq = src.srq;
    dst.qp_num = src.qp_num;
}

fn copy_ud_event(evt: &mut CmaEvent, src: &rdma_ucm_ud_param) {
    let pd = attach_private_data(evt, src.private_data_len, &src.private_data);
    // SAFETY: writing the ud member of the event's param union.
    let dst = unsafe { &mut evt.event.param.ud };
    dst.private_data = pd;
    dst.private_data_len = src.private_data_len;
    let mut ah = src.ah_attr;
    // SAFETY: both are valid, properly typed AH attribute structs.
    unsafe { crate::verbs::ibv_copy_ah_attr_from_kern(&mut dst.ah_attr, &mut ah) };
    dst.qp_num = src.qp_num;
    dst.qkey = src.qkey;
}

fn process_addr_resolved(evt: &mut CmaEvent) {
    let id = Id(evt.id_priv);
    let r = if crate::ucma::af_ib_support() {
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
    let r = if crate::ucma::af_ib_support() {
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
    if !crate::ucma::af_ib_support() {
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

/// A new event on the heap, from malloc: the public part zeroed (as
/// upstream's memset leaves it), the private data buffer not. Not
/// `Box::new(zeroed())`, which the compiler turns into calloc: glibc's calloc
/// never takes a chunk from the thread's cache, while free puts one there, so
/// with one event freed per event read the cache's bin for this size stayed
/// full and every free took the slow path (callgrind, cmtime -c 200: about
/// 230 more instructions per event than malloc + free). Zeroing only the
/// 80-byte public part also spares a memset call over the 256-byte buffer.
fn new_event() -> Res<Box<CmaEvent>> {
    let mut b = rdma_util::fallible::try_box_uninit::<CmaEvent>().map_err(|_| libc::ENOMEM)?;
    // SAFETY: the box's allocation is live and aligned; reset_event writes
    // every field but private_data, which is MaybeUninit.
    unsafe {
        reset_event(b.as_mut_ptr());
        Ok(b.assume_init())
    }
}

/// Zeroes the public part of an event and its links (see [`new_event`]).
///
/// # Safety
/// `p` points to writable memory for a CmaEvent.
unsafe fn reset_event(p: *mut CmaEvent) {
    // SAFETY: caller's guarantee; all-zero is a valid rdma_cm_event.
    unsafe {
        addr_of_mut!((*p).event).write_bytes(0, 1);
        addr_of_mut!((*p).id_priv).write(core::ptr::null_mut());
        addr_of_mut!((*p).mc).write(core::ptr::null_mut());
    }
}

/// One GET_EVENT round trip, in steps, so that an exported call can make
/// the (blocking) write itself where a thread cancellation may unwind (see
/// `ffi::cancellable`): [`EventWait::new`] once, then per round
/// [`EventWait::command`], the write, and [`EventWait::finish`]. Nothing in
/// it has a destructor: a cancelled wait leaves the event allocated, as
/// upstream's does.
#[derive(Clone, Copy)]
pub(crate) struct EventWait {
    /// The channel's fd.
    pub(crate) fd: c_int,
    evt: *mut CmaEvent,
}

/// What a round of [`EventWait`] came to.
#[derive(Clone, Copy)]
pub(crate) enum Round {
    /// The event, or the error (the event freed).
    Done(Res<*mut rdma_cm_event>),
    /// The kernel's event was one to skip: write again.
    Again,
}

impl EventWait {
    /// ENOMEM when the event cannot be allocated (as upstream's malloc).
    ///
    /// # Safety
    /// `channel` is a live event channel.
    pub(crate) unsafe fn new(channel: *mut rdma_event_channel) -> Res<EventWait> {
        Ok(EventWait {
            // SAFETY: channel is live (the contract).
            fd: unsafe { (*channel).fd },
            evt: Box::into_raw(new_event()?),
        })
    }

    /// Readies `resp` and returns the command that asks the kernel to fill
    /// it.
    pub(crate) fn command(resp: &mut MaybeUninit<rdma_ucm_event_resp>) -> ucma_cmd<rdma_ucm_get_event> {
        // Not zeroed as a whole (upstream does not zero it either): the
        // kernel copies out its own zero-initialised response, as much of it
        // as it has, and every kernel with this ABI has everything up to
        // `reserved`. Only `reserved` and `ece`, which kernels before 5.9
        // lack, are zeroed here.
        let rp = resp.as_mut_ptr();
        // SAFETY: rp points to the (writable) response buffer.
        unsafe {
            addr_of_mut!((*rp).reserved).write(0);
            addr_of_mut!((*rp).ece).write_bytes(0, 1);
        }
        let body = rdma_ucm_get_event { response: rp as u64 };
        crate::ucma::encode(RDMA_USER_CM_CMD_GET_EVENT, body, core::mem::size_of::<rdma_ucm_event_resp>())
    }

    /// After the write of [`EventWait::command`] (`written`, its result).
    ///
    /// # Safety
    /// `resp` is the buffer given to `command`, which a successful write
    /// filled; `self` is not used again after a `Done`.
    pub(crate) unsafe fn finish(self, written: Res<()>, resp: &MaybeUninit<rdma_ucm_event_resp>) -> Round {
        if let Err(e) = written {
            // SAFETY: allocated by new() and not handed out.
            drop(unsafe { Box::from_raw(self.evt) });
            return Round::Done(Err(e));
        }
        rdma_util::valgrind::make_mem_defined(resp.as_ptr(), core::mem::size_of::<rdma_ucm_event_resp>());
        // SAFETY: the command succeeded, so the kernel wrote the fields up
        // to `reserved` (see command()) and the rest was zeroed there.
        let resp = unsafe { resp.assume_init_ref() };
        // SAFETY: evt is our live, unshared event.
        match translate_event(unsafe { &mut *self.evt }, resp) {
            // SAFETY: as above; handed out now.
            Ok(true) => return Round::Done(Ok(unsafe { addr_of_mut!((*self.evt).event) })),
            Ok(false) => {}
            Err(e) => {
                // SAFETY: allocated by new() and not handed out.
                drop(unsafe { Box::from_raw(self.evt) });
                return Round::Done(Err(e));
            }
        }
        // A skipped event may have filled some fields: start clean.
        // SAFETY: evt is a live CmaEvent.
        unsafe { reset_event(self.evt) };
        Round::Again
    }
}

/// `rdma_get_cm_event` inside the library (synchronous ids): its write is
/// not a cancellation point (see `ucma::write_raw`).
///
/// # Safety
/// `channel` is a live event channel.
unsafe fn get_cm_event(channel: *mut rdma_event_channel) -> Res<*mut rdma_cm_event> {
    // SAFETY: the contract.
    unsafe { get_cm_event_with(EventWait::new(channel)?) }
}

/// [`get_cm_event`] on a wait already begun.
///
/// # Safety
/// `w` comes from [`EventWait::new`] and is not used afterwards.
pub(crate) unsafe fn get_cm_event_with(w: EventWait) -> Res<*mut rdma_cm_event> {
    loop {
        let mut resp = MaybeUninit::uninit();
        let cmd = EventWait::command(&mut resp);
        let written = crate::ucma::write_raw(w.fd, &cmd);
        // SAFETY: resp is the buffer of this round's command.
        if let Round::Done(r) = unsafe { w.finish(written, &resp) } {
            return r;
        }
    }
}

/// Waits on `w` where a thread cancellation may end the wait, as upstream's
/// rdma_get_cm_event: the GET_EVENT write is a cancellation point (see
/// `ffi::cancellable`). For exported calls only, outside their guarded parts:
/// the caller's frame must hold nothing with a destructor. Rounds that only
/// skip an event run under `guard`.
///
/// # Safety
/// `w` comes from [`EventWait::new`] and is not used afterwards.
#[inline(always)]
pub(crate) unsafe fn wait_event_cancellable(name: &'static str, w: EventWait) -> Res<*mut rdma_cm_event> {
    loop {
        let mut resp = MaybeUninit::uninit();
        let cmd = EventWait::command(&mut resp);
        // SAFETY: a plain struct of that size; resp outlives the write.
        let written = unsafe { crate::ucma::write_raw_cancellable(w.fd, &cmd) };
        // SAFETY: resp is the buffer of this round's command.
        let round = rdma_util::ffi::guard(crate::LIB_NAME, name, Round::Done(Err(libc::EIO)), || unsafe { w.finish(written, &resp) });
        if let Round::Done(r) = round {
            return r;
        }
    }
}

/// Fills `evt` from a kernel event: Ok(true) to hand it out, Ok(false)
/// when it is to be skipped (and the next one read), Err(errno) when the
/// read fails with it (an INTERNAL event this library did not write).
pub(crate) fn translate_event(evt: &mut CmaEvent, resp: &rdma_ucm_event_resp) -> Res<bool> {
    evt.event.event = resp.event;
    // Events carry our uid, except connection requests on some old kernels
    // (and a kernel bug reporting uid 0): look those up by handle; only an
    // ESTABLISHED event is worth keeping then.
    let id = if resp.uid != 0 {
        Id(resp.uid as *mut IdPriv)
    } else {
        let Some(id) = lookup_id(resp.id) else {
            warn_unmatched();
            return Ok(false);
        };
        if resp.event != RDMA_CM_EVENT_ESTABLISHED {
            complete_event(id);
            return Ok(false);
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
                return Ok(false);
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
                return Ok(false);
            }
            // SAFETY: see above.
            copy_conn_event(evt, unsafe { &resp.param.conn });
            let _ = crate::qp::modify_qp_err(id);
        }
        RDMA_CM_EVENT_DISCONNECTED => {
            if id.connect_error() {
                complete_event(id);
                return Ok(false);
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
                evt.event.status = process_join(evt);
                if evt.event.status != 0 {
                    evt.event.event = RDMA_CM_EVENT_MULTICAST_ERROR;
                }
            } else {
                evt.event.param.ud.private_data = m.context;
            }
        }
        RDMA_CM_EVENT_ADDRINFO_RESOLVED => process_addrinfo_resolved(evt),
        RDMA_CM_EVENT_ADDRINFO_ERROR => clear_resolving_ai(id),
        RDMA_CM_EVENT_USER => set_event_arg(evt, event_resp_arg(resp)),
        RDMA_CM_EVENT_INTERNAL => {
            // Only one kind is ever written (by rdma_resolve_addrinfo's
            // host-name resolution): the result is already on the id.
            if event_resp_arg(resp) != u64::from(RDMA_CM_EVENT_ADDRINFO_RESOLVED) {
                // Upstream fails the read with EBADE and leaves the event
                // unacknowledged (rdma_destroy_id would then wait for it
                // forever); it is counted as acknowledged here.
                complete_event(id);
                return Err(libc::EBADE);
            }
            evt.event.event = RDMA_CM_EVENT_ADDRINFO_RESOLVED;
            process_addrinfo_resolved(evt);
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
    Ok(true)
}

/// The 64-bit argument of a USER or INTERNAL event: the first 8 bytes of
/// the response's `param` union (rdma-core 65's `arg32[2]`, unaligned).
fn event_resp_arg(resp: &rdma_ucm_event_resp) -> u64 {
    // SAFETY: the union is 304 plain bytes; an unaligned read of its first
    // 8 stays inside it.
    unsafe { addr_of!(resp.param).cast::<u64>().read_unaligned() }
}

/// Stores `arg` in the event's `param.arg` (rdma-core 65's third member
/// of the union: its first 8 bytes, see `rdma_abi::cma_v65`).
fn set_event_arg(evt: &mut CmaEvent, arg: u64) {
    // SAFETY: the param union is 56 bytes, 8-aligned; writing its first 8.
    unsafe { addr_of_mut!(evt.event.param).cast::<u64>().write(arg) }
}

/// The id's address resolution is over without a result to query.
fn clear_resolving_ai(id: Id) {
    id.ev().0.lock().resolving_ai = false;
}

/// An ADDRINFO_RESOLVED event: a host-name resolution left its result on
/// the id already; an IB service resolution is fetched from the kernel
/// now. If that fails, the event becomes ADDRINFO_ERROR with the errno as
/// its status, and the id may resolve again.
fn process_addrinfo_resolved(evt: &mut CmaEvent) {
    let id = Id(evt.id_priv);
    if !id.ev().0.lock().resolved_ai.is_null() {
        return;
    }
    match query_ib_service(id) {
        Ok(rai) => id.ev().0.lock().resolved_ai = rai,
        Err(e) => {
            evt.event.event = RDMA_CM_EVENT_ADDRINFO_ERROR;
            evt.event.status = e;
            clear_resolving_ai(id);
        }
    }
}

/// Room for this many service records in the first QUERY(IB_SERVICE)
/// (upstream's first guess too); a larger answer is asked for again with
/// room for all of it.
const FIRST_SERVICE_RECS: usize = 6;

/// QUERY(IB_SERVICE): the records the kernel resolved for the id, then the
/// id's addresses (QUERY(ADDR)), and the records as a chain of AF_IB
/// results. ENOENT when the kernel found none.
fn query_ib_service(id: Id) -> Res<*mut rdma_addrinfo> {
    const HDR: usize = core::mem::size_of::<rdma_ucm_query_ib_service_resp>();
    const REC: usize = core::mem::size_of::<ib_user_service_rec>();
    let mut room = FIRST_SERVICE_RECS;
    loop {
        // 8-byte words, as the response's alignment asks; zeroed.
        let words = (HDR + REC * room) / 8;
        let mut buf: Vec<u64> = Vec::new();
        buf.try_reserve_exact(words).map_err(|_| libc::ENOMEM)?;
        buf.resize(words, 0);
        let body = rdma_ucm_query { response: buf.as_mut_ptr() as u64, id: id.handle(), option: RDMA_USER_CM_QUERY_IB_SERVICE };
        crate::ucma::write_raw(id.fd(), &crate::ucma::encode(RDMA_USER_CM_CMD_QUERY, body, words * 8))?;
        rdma_util::valgrind::make_mem_defined(buf.as_ptr(), words * 8);
        // SAFETY: buf holds the header (8-aligned, zeroed, then the kernel's).
        let n = unsafe { (*buf.as_ptr().cast::<rdma_ucm_query_ib_service_resp>()).num_service_recs } as usize;
        if n == 0 {
            return Err(libc::ENOENT);
        }
        if n > room {
            room = n;
            continue;
        }
        crate::addr::query_addr(id)?;
        // SAFETY: n <= room records follow the header in buf, each a plain
        // struct of integers the kernel (or the zeroing) filled.
        let recs = unsafe { core::slice::from_raw_parts(buf.as_ptr().cast::<u8>().add(HDR).cast::<ib_user_service_rec>(), n) };
        return service_chain(recs);
    }
}

/// Service records as rdma_addrinfo results: each an AF_IB destination in
/// the IB port space carrying the record's GID, P_Key and service id (with
/// a full mask), flagged RAI_SA. ENOMEM when the chain cannot be had.
fn service_chain(recs: &[ib_user_service_rec]) -> Res<*mut rdma_addrinfo> {
    let mut chain = Vec::new();
    chain.try_reserve_exact(recs.len()).map_err(|_| libc::ENOMEM)?;
    for r in recs {
        let mut sib: sockaddr_ib = rdma_util::mem::zeroed();
        sib.sib_family = AF_IB as u16;
        sib.sib_pkey = r.pkey;
        sib.sib_addr.ib_u.uib_addr8 = r.gid;
        sib.sib_sid = r.id;
        sib.sib_sid_mask = u64::MAX;
        // SAFETY: a plain struct's bytes.
        let bytes = unsafe { core::slice::from_raw_parts((&sib as *const sockaddr_ib).cast::<u8>(), core::mem::size_of::<sockaddr_ib>()) };
        let dst = crate::addrinfo::dup(bytes).map_err(|_| libc::ENOMEM)?;
        chain.push(crate::addrinfo::AddrInfo {
            flags: RAI_SA,
            family: AF_IB,
            port_space: RDMA_PS_IB as c_int,
            dst: Some(dst),
            ..Default::default()
        });
    }
    crate::addrinfo::chain_to_c(&chain).ok_or(libc::ENOMEM)
}

/// `rdma_write_cm_event`'s command: queues `event` with `status` and `arg`
/// on the id's channel, to come back through rdma_get_cm_event. Kernels
/// before the command existed (Linux 6.1) refuse it with EINVAL.
pub(crate) fn write_cm_event(id: Id, event: rdma_cm_event_type, status: c_int, arg: u64) -> Res<()> {
    let mut body: rdma_ucm_write_cm_event = rdma_util::mem::zeroed();
    body.id = id.handle();
    body.event = event;
    body.status = status as u32;
    body.param.arg = arg;
    crate::ucma::write_cmd(id.fd(), RDMA_USER_CM_CMD_WRITE_CM_EVENT, body)
}

rdma_util::export! {
    /// Queues an application event (RDMA_CM_EVENT_USER only: anything else
    /// is EINVAL) on the id's channel, with `status` and `arg` as given;
    /// rdma_get_cm_event returns it like any other event (`param.arg`).
    fn rdma_write_cm_event(id: *mut rdma_cm_id, event: rdma_cm_event_type, status: c_int, arg: u64) -> c_int, on_panic = -1;
    {
        rdma_util::ensure!(event == RDMA_CM_EVENT_USER, libc::EINVAL, -1);
        // Upstream would dereference a NULL id.
        rdma_util::ensure!(!id.is_null(), libc::EINVAL, -1);
        ret_int(write_cm_event(Id::from_cm(id), event, status, arg))
    }
}

/// A join completed: record the group's GID and LID and attach the QP
/// (not for send-only members). Returns the event status.
fn process_join(evt: &mut CmaEvent) -> c_int {
    // SAFETY: a MULTICAST_JOIN event's group is live; the ud member of the
    // param union is the one filled for this event.
    let (mc, ah) = unsafe { (&mut *evt.mc, &evt.event.param.ud.ah_attr) };
    mc.mgid = ah.grh.dgid;
    mc.mlid = ah.dlid;
    let qp = Id(evt.id_priv).qp();
    if qp.is_null() || u32::from(mc.join_flags) == RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER {
        return 0;
    }
    // SAFETY: the id's QP is live.
    let ret = unsafe { crate::verbs::ibv_attach_mcast(qp, &mc.mgid, mc.mlid) };
    ret_int(if ret != 0 { Err(ret) } else { Ok(()) })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::id::tests::{completed, fake_id};
    use crate::id::{ack_cm_event, free_id};

    /// Whether translate_event hands the event out (it must not fail).
    fn keeps(evt: &mut CmaEvent, r: &rdma_ucm_event_resp) -> bool {
        translate_event(evt, r).unwrap()
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
        let mut evt = new_event().unwrap();
        assert!(keeps(&mut evt, &r));
        assert_eq!(evt.event.event, RDMA_CM_EVENT_ESTABLISHED);
        assert_eq!(evt.event.id, id.cm());
        assert!(evt.event.listen_id.is_null());
        assert_eq!(evt.event.status, 0);
        // SAFETY: the conn member was filled.
        let p = unsafe { evt.event.param.conn };
        assert_eq!(p.private_data_len, 5);
        assert_eq!(p.private_data, evt.private_data.as_ptr().cast());
        // SAFETY: an event with private data has the whole buffer written.
        let data = unsafe { evt.private_data.assume_init_ref() };
        assert_eq!(&data[..5], b"hello");
        assert!(data[5..].iter().all(|&b| b == 0), "zero past the data, as upstream's buffer");
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
        let mut evt = new_event().unwrap();
        assert!(keeps(&mut evt, &r));
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
        let mut evt = new_event().unwrap();
        assert!(keeps(&mut evt, &r));
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
        let mut evt = new_event().unwrap();
        assert!(!keeps(&mut evt, &resp(id.0 as u64, RDMA_CM_EVENT_REJECTED, 28)));
        assert!(!keeps(&mut evt, &resp(id.0 as u64, RDMA_CM_EVENT_DISCONNECTED, 0)));
        assert_eq!(completed(id), 2, "both skipped events count as acked");
        id.set_connect_error(false);
        assert!(keeps(&mut evt, &resp(id.0 as u64, RDMA_CM_EVENT_DISCONNECTED, 0)));
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
        let mut evt = new_event().unwrap();
        assert!(!keeps(&mut evt, &r));
        assert_eq!(completed(id), 1);
        r.event = RDMA_CM_EVENT_ESTABLISHED;
        assert!(keeps(&mut evt, &r));
        assert_eq!(evt.event.id, id.cm());
        // Unknown handle: dropped (with a syslog warning), nothing counted.
        r.id = 4243;
        assert!(!keeps(&mut evt, &r));
        assert_eq!(completed(id), 1);
        free_id(id);
        assert!(lookup_id(4242).is_none());
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
            addr: rdma_util::mem::zeroed(),
        }));
        let mut evt = new_event().unwrap();
        assert!(keeps(&mut evt, &resp(mc as u64, RDMA_CM_EVENT_MULTICAST_ERROR, -libc::ENETUNREACH)));
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

    /// A pipe standing for an event channel: what the library writes to
    /// the channel can be read back from the other end.
    pub(crate) fn channel_pipe() -> (c_int, rdma_event_channel) {
        let mut p = [0; 2];
        // SAFETY: room for two descriptors.
        assert_eq!(unsafe { libc::pipe2(p.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) }, 0);
        (p[0], rdma_event_channel { fd: p[1] })
    }

    /// Everything written to the channel so far (empty when nothing was).
    pub(crate) fn written(r: c_int) -> Vec<u8> {
        let mut buf = vec![0u8; 8192];
        // SAFETY: reading into a local buffer of that size.
        let n = unsafe { libc::read(r, buf.as_mut_ptr().cast(), buf.len()) };
        buf.truncate(n.max(0) as usize);
        buf
    }

    pub(crate) fn close_pipe(r: c_int, ch: &rdma_event_channel) {
        // SAFETY: the test's own pipe.
        unsafe {
            libc::close(r);
            libc::close(ch.fd);
        }
    }

    pub(crate) fn u32_at(b: &[u8], off: usize) -> u32 {
        u32::from_ne_bytes(b[off..off + 4].try_into().unwrap())
    }

    pub(crate) fn u64_at(b: &[u8], off: usize) -> u64 {
        u64::from_ne_bytes(b[off..off + 8].try_into().unwrap())
    }

    fn arg_of(evt: &CmaEvent) -> u64 {
        // SAFETY: the union's first 8 bytes (65's `arg`).
        unsafe { addr_of!(evt.event.param).cast::<u64>().read() }
    }

    fn resp_with_arg(uid: u64, event: rdma_cm_event_type, status: i32, arg: u64) -> rdma_ucm_event_resp {
        let mut r = resp(uid, event, status);
        // SAFETY: the union's first 8 bytes (65's `arg32[2]`).
        unsafe { addr_of_mut!(r.param).cast::<u8>().cast::<[u8; 8]>().write(arg.to_ne_bytes()) };
        r
    }

    #[test]
    fn a_user_event_carries_its_status_and_argument_and_nothing_else() {
        let mut ch = rdma_event_channel { fd: -1 };
        let id = fake_id(&mut ch, IBV_QPT_RC);
        let mut evt = new_event().unwrap();
        assert!(keeps(&mut evt, &resp_with_arg(id.0 as u64, RDMA_CM_EVENT_USER, -5, 0x1122_3344_5566_7788)));
        assert_eq!(evt.event.event, RDMA_CM_EVENT_USER);
        assert_eq!(evt.event.id, id.cm());
        assert_eq!(evt.event.status, -5);
        assert_eq!(arg_of(&evt), 0x1122_3344_5566_7788);
        // SAFETY: reading the conn member's bytes (all plain data).
        let c = unsafe { evt.event.param.conn };
        assert_eq!((c.private_data_len, c.qp_num), (0, 0), "no connection parameters copied");
        ack_cm_event(&mut Box::leak(evt).event).unwrap();
        assert_eq!(completed(id), 1, "acked like any event");
        free_id(id);
    }

    #[test]
    fn write_cm_event_takes_only_user_events_and_sends_upstreams_command() {
        let (r, mut ch) = channel_pipe();
        let id = fake_id(&mut ch, IBV_QPT_RC);
        // SAFETY (all calls): a live id or NULL.
        unsafe {
            for ev in [RDMA_CM_EVENT_ESTABLISHED, RDMA_CM_EVENT_INTERNAL, RDMA_CM_EVENT_ADDRINFO_RESOLVED, 99] {
                rdma_util::ffi::set_errno(0);
                assert_eq!(rdma_write_cm_event(id.cm(), ev, 0, 1), -1);
                assert_eq!(rdma_util::ffi::errno(), libc::EINVAL);
            }
            assert!(written(r).is_empty(), "refused events are not written");
            assert_eq!(rdma_write_cm_event(null_mut(), RDMA_CM_EVENT_USER, 0, 1), -1);
            assert_eq!(rdma_util::ffi::errno(), libc::EINVAL);
            assert_eq!(rdma_write_cm_event(id.cm(), RDMA_CM_EVENT_USER, -3, 0xdead_beef_0000_0001), 0);
        }
        let b = written(r);
        assert_eq!(b.len(), 8 + 320, "header and rdma_ucm_write_cm_event");
        assert_eq!(u32_at(&b, 0), RDMA_USER_CM_CMD_WRITE_CM_EVENT);
        assert_eq!(u16::from_ne_bytes([b[4], b[5]]), 320, "in");
        assert_eq!(u16::from_ne_bytes([b[6], b[7]]), 0, "out");
        assert_eq!(u32_at(&b, 8), 77, "the id's handle");
        assert_eq!(u32_at(&b, 16), RDMA_CM_EVENT_USER);
        assert_eq!(u32_at(&b, 20), (-3i32) as u32);
        assert_eq!(u64_at(&b, 24), 0xdead_beef_0000_0001);
        assert!(b[12..16].iter().chain(&b[32..]).all(|&x| x == 0), "the rest zeroed");
        close_pipe(r, &ch);
        // A channel the command cannot be written to (Linux 6.1 refuses the
        // command with EINVAL): -1 with the write's errno.
        let mut bad = rdma_event_channel { fd: -1 };
        let id2 = fake_id(&mut bad, IBV_QPT_RC);
        // SAFETY: a live id.
        assert_eq!(unsafe { rdma_write_cm_event(id2.cm(), RDMA_CM_EVENT_USER, 0, 0) }, -1);
        assert_eq!(rdma_util::ffi::errno(), libc::EBADF);
        free_id(id2);
        free_id(id);
    }

    #[test]
    fn an_internal_event_announces_a_waiting_host_name_result() {
        let mut ch = rdma_event_channel { fd: -1 };
        let id = fake_id(&mut ch, IBV_QPT_RC);
        let rai = crate::addrinfo::chain_to_c(&[crate::addrinfo::AddrInfo { flags: 7, ..Default::default() }]).unwrap();
        {
            let mut g = id.ev().0.lock();
            g.resolving_ai = true;
            g.resolved_ai = rai;
        }
        let mut evt = new_event().unwrap();
        let r = resp_with_arg(id.0 as u64, RDMA_CM_EVENT_INTERNAL, 0, u64::from(RDMA_CM_EVENT_ADDRINFO_RESOLVED));
        assert!(keeps(&mut evt, &r));
        assert_eq!(evt.event.event, RDMA_CM_EVENT_ADDRINFO_RESOLVED);
        assert_eq!(evt.event.status, 0);
        assert_eq!(arg_of(&evt), 0, "the argument stays the library's");
        {
            let g = id.ev().0.lock();
            assert!(g.resolving_ai);
            assert_eq!(g.resolved_ai, rai, "the result stays for rdma_query_addrinfo");
        }
        // Any other INTERNAL event fails the read with EBADE; it is counted
        // as acknowledged, so the id can still be destroyed.
        let mut evt2 = new_event().unwrap();
        let r = resp_with_arg(id.0 as u64, RDMA_CM_EVENT_INTERNAL, 0, 5);
        assert_eq!(translate_event(&mut evt2, &r), Err(libc::EBADE));
        assert_eq!(completed(id), 1);
        ack_cm_event(&mut Box::leak(evt).event).unwrap();
        free_id(id); // frees the untaken result too
    }

    #[test]
    fn an_addrinfo_error_ends_the_resolution() {
        let mut ch = rdma_event_channel { fd: -1 };
        let id = fake_id(&mut ch, IBV_QPT_RC);
        id.ev().0.lock().resolving_ai = true;
        let mut evt = new_event().unwrap();
        assert!(keeps(&mut evt, &resp(id.0 as u64, RDMA_CM_EVENT_ADDRINFO_ERROR, -libc::ETIMEDOUT)));
        assert_eq!(evt.event.event, RDMA_CM_EVENT_ADDRINFO_ERROR);
        assert_eq!(evt.event.status, -libc::ETIMEDOUT);
        assert!(!id.ev().0.lock().resolving_ai);
        free_id(id);
    }

    #[test]
    fn a_service_resolution_fetches_the_records_and_fails_without_any() {
        let (r, mut ch) = channel_pipe();
        let id = fake_id(&mut ch, IBV_QPT_RC);
        id.ev().0.lock().resolving_ai = true;
        let mut evt = new_event().unwrap();
        // The kernel's ADDRINFO_RESOLVED: the library asks for the records;
        // nothing answers the pipe, so the response says none: ENOENT.
        assert!(keeps(&mut evt, &resp(id.0 as u64, RDMA_CM_EVENT_ADDRINFO_RESOLVED, 0)));
        let b = written(r);
        assert_eq!(b.len(), 8 + 16, "one QUERY");
        assert_eq!(u32_at(&b, 0), RDMA_USER_CM_CMD_QUERY);
        assert_eq!(u16::from_ne_bytes([b[6], b[7]]), 8 + 6 * 176, "room for six records");
        assert_eq!(u32_at(&b, 16), 77);
        assert_eq!(u32_at(&b, 20), RDMA_USER_CM_QUERY_IB_SERVICE);
        assert_eq!(evt.event.event, RDMA_CM_EVENT_ADDRINFO_ERROR);
        assert_eq!(evt.event.status, libc::ENOENT);
        assert!(!id.ev().0.lock().resolving_ai, "the id may resolve again");
        close_pipe(r, &ch);
        free_id(id);
    }

    #[test]
    fn service_records_become_af_ib_results() {
        let mut recs: [ib_user_service_rec; 2] = [rdma_util::mem::zeroed(); 2];
        for (i, r) in recs.iter_mut().enumerate() {
            r.id = (0x1000 + i as u64).to_be();
            r.gid = [i as u8 + 1; 16];
            r.pkey = 0xffffu16.to_be();
        }
        let head = service_chain(&recs).unwrap();
        let mut p = head;
        for i in 0..2 {
            // SAFETY: the chain just made.
            let a = unsafe { &*p };
            assert_eq!((a.ai_flags, a.ai_family, a.ai_port_space, a.ai_qp_type), (RAI_SA, AF_IB, RDMA_PS_IB as c_int, 0));
            assert_eq!(a.ai_dst_len as usize, core::mem::size_of::<sockaddr_ib>());
            assert!(a.ai_src_addr.is_null() && a.ai_route.is_null());
            // SAFETY: an AF_IB destination of that length.
            let sib = unsafe { &*a.ai_dst_addr.cast::<sockaddr_ib>() };
            assert_eq!(sib.sib_family, AF_IB as u16);
            // SAFETY: the union's bytes.
            assert_eq!(unsafe { sib.sib_addr.ib_u.uib_addr8 }, [i as u8 + 1; 16]);
            assert_eq!((sib.sib_pkey, sib.sib_sid), (0xffffu16.to_be(), (0x1000 + i as u64).to_be()));
            assert_eq!(sib.sib_sid_mask, u64::MAX);
            p = a.ai_next;
        }
        assert!(p.is_null());
        // SAFETY: the chain, freed once.
        unsafe { crate::addrinfo::free_chain(head) };
    }
}
