#!/usr/bin/python3
"""Debian's pyverbs (python3-pyverbs) on rxe0, for the VM scenario
pyverbs_rxe0 (abi-tests/scenarios/vm.sh): run once with Debian's libraries
and once with ours (LD_LIBRARY_PATH=target/release), the output must be the
same. Lists the devices, opens rxe0, and prints what pyverbs reads through
libibverbs: device attributes (plain and extended), port 1, the P_Key and
GID tables, then a PD, CQ and RC QP made and destroyed through pyverbs.
Also prints which libibverbs/librdmacm the process mapped, without the
directory, so both runs print the same line while a run that silently used
another library would not (the harness checks paths separately)."""
import os
import sys

import pyverbs.cmid  # noqa: F401  (librdmacm must load too)
import pyverbs.device as d
from pyverbs.cq import CQ
from pyverbs.pd import PD
from pyverbs.qp import QP, QPCap, QPInitAttr
import pyverbs.enums as e

def mapped():
    libs = set()
    with open('/proc/self/maps') as f:
        for line in f:
            path = line.split()[-1]
            base = os.path.basename(path)
            if base.startswith(('libibverbs.so', 'librdmacm.so', 'librxe-')):
                libs.add(base.split('.so')[0])
    return sorted(libs)

def dump(obj, indent='', depth=0):
    """Prints every public attribute of a pyverbs attribute object whose
    class has no __str__ of its own (DeviceAttrEx): values, and nested
    objects the same way."""
    for name in sorted(n for n in dir(obj) if not n.startswith('_')):
        value = getattr(obj, name)
        if callable(value):
            continue
        if isinstance(value, (int, str, bytes, float)):
            print('%s%s: %r' % (indent, name, value))
        elif type(value).__str__ is not object.__str__:
            print('%s%s:' % (indent, name))
            print(str(value).rstrip())
        elif depth < 3:
            print('%s%s:' % (indent, name))
            dump(value, indent + '  ', depth + 1)
        else:
            print('%s%s: <%s>' % (indent, name, type(value).__name__))


names = sorted(dev.name.decode() for dev in d.get_device_list())
print('devices:', names)
if 'rxe0' not in names:
    sys.exit('rxe0 not listed')

with d.Context(name='rxe0') as ctx:
    print('device:', ctx.name)
    print(ctx.query_device())
    dump(ctx.query_device_ex())
    print(ctx.query_port(1))
    print('pkey[0]: %#06x' % ctx.query_pkey(1, 0))
    for i in range(2):
        print('gid[%d]: %s' % (i, ctx.query_gid(1, i)))
    print('gid type[0]:', ctx.query_gid_type(1, 0))
    with PD(ctx) as pd, CQ(ctx, 16) as cq:
        cap = QPCap(max_send_wr=8, max_recv_wr=8, max_send_sge=1, max_recv_sge=1)
        init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap)
        with QP(pd, init) as qp:
            print('qp type:', qp.qp_type, 'state:', qp.qp_state)
print('libraries:', mapped())
