/*
 * IBV_OPCODE(transport, op) writes the enumerator IBV_OPCODE_<transport>_<op>
 * with the value IBV_OPCODE_<transport> + IBV_OPCODE_<op>: the BTH opcode is
 * the transport's base (RC, UC, RD, UD) plus the operation's number. It is
 * how the header's own list is built; only usable inside an enum.
 */
#define IBV_OPCODE(transport, op) \
	IBV_OPCODE_##transport##_##op = IBV_OPCODE_##transport + IBV_OPCODE_##op
