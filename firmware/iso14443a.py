# ISO/IEC 14443-3 type A card activation: WUPA/REQA, bit-oriented anticollision
# and SELECT over cascade levels 1-3, so 4-, 7- and 10-byte UIDs are read whole.
#
# Works with any "PCD" object (proximity coupling device = the reader chip)
# that offers transceive(data, tx_last_bits=0, rx_align=0) returning a tuple
# (status, response bytes, rx_last_bits, coll_pos):
#   status     OK, TIMEOUT (nothing answered), COLLISION, or ERROR
#   rx_last_bits  valid bits in the last received byte (0 = all 8)
#   coll_pos   on COLLISION: 1-based position of the first colliding bit,
#              counted from bit 0 of the first received byte (the received
#              frame is stored aligned to rx_align, so that byte also holds
#              the bits we sent).
# The MFRC522 driver (mfrc522.py) and the fake chip (fakehw.py) both do.

OK = 0
TIMEOUT = 1
COLLISION = 2
ERROR = 3

REQA = 0x26
WUPA = 0x52
HLTA = 0x50
CASCADE_TAG = 0x88
SEL_CMDS = (0x93, 0x95, 0x97)
SAK_CASCADE = 0x04  # "UID not complete" bit of the SAK


class CardError(Exception):
    """A card answered but something in its answer was wrong (reason in args[0])."""


def crc_a(data):
    """CRC_A of ISO/IEC 14443-3 (init 0x6363, reflected poly 0x8408); returns 2 bytes, LSB first."""
    crc = 0x6363
    for b in data:
        b = (b ^ (crc & 0xFF)) & 0xFF
        b = (b ^ (b << 4)) & 0xFF
        crc = ((crc >> 8) ^ (b << 8) ^ (b << 3) ^ (b >> 4)) & 0xFFFF
    return bytes((crc & 0xFF, crc >> 8))


def request(pcd, cmd=WUPA):
    """Send REQA or WUPA (7-bit short frame). Returns the 2-byte ATQA or None if no card."""
    status, resp, _last, _coll = pcd.transceive(bytes((cmd,)), 7, 0)
    if status == TIMEOUT:
        return None
    if status == COLLISION:
        # Several cards answered at once; ATQA collisions are normal, go on.
        return b"\x00\x00"
    if status != OK or len(resp) != 2:
        raise CardError("atqa")
    return resp


def halt(pcd):
    """HLTA: put the selected card to sleep. A card never answers HLTA, so a
    PCD with send() (transmit only) does not wait out a receive timeout."""
    frame = bytes((HLTA, 0x00))
    frame = frame + crc_a(frame)
    send = getattr(pcd, "send", None)
    if send is not None:
        send(frame)
    else:
        pcd.transceive(frame, 0, 0)


def anticollision(pcd, sel):
    """Resolve one cascade level; returns the 5 bytes (4 UID bytes + BCC) of one card, or None."""
    uid = bytearray(5)
    known = 0  # number of UID bits already fixed
    for _ in range(41):
        nbytes = known // 8
        nbits = known % 8
        nvb = ((2 + nbytes) << 4) | nbits
        sent = nbytes + (1 if nbits else 0)
        frame = bytes((sel, nvb)) + bytes(uid[:sent])
        status, resp, _last, coll = pcd.transceive(frame, nbits, nbits)
        if status == TIMEOUT:
            return None
        if status == ERROR or not resp:
            raise CardError("anticollision")
        # Merge the received bits: the first received byte shares byte `nbytes`
        # of the UID with the bits we sent (its low `nbits` bits are ours).
        keep = (1 << nbits) - 1
        uid[nbytes] = (uid[nbytes] & keep) | (resp[0] & ~keep & 0xFF)
        for i in range(1, len(resp)):
            if nbytes + i < 5:
                uid[nbytes + i] = resp[i]
        if status == OK:
            if nbytes + len(resp) < 5:
                raise CardError("short")
            break
        # COLLISION: bits up to the colliding one are good; choose 1 for it.
        pos = nbytes * 8 + coll  # absolute 1-based bit position in the 40 bits
        if coll <= 0 or pos <= known or pos > 40:
            raise CardError("collision")
        known = pos
        byte = (pos - 1) // 8
        bit = (pos - 1) % 8
        uid[byte] = (uid[byte] & ((1 << bit) - 1)) | (1 << bit)
        for i in range(byte + 1, 5):
            uid[i] = 0
    else:
        raise CardError("anticollision")
    if uid[0] ^ uid[1] ^ uid[2] ^ uid[3] != uid[4]:
        raise CardError("bcc")
    return bytes(uid)


def select(pcd, sel, uid5):
    """SELECT one cascade level with its 4 UID bytes + BCC; returns the SAK."""
    frame = bytes((sel, 0x70)) + uid5
    status, resp, _last, _coll = pcd.transceive(frame + crc_a(frame), 0, 0)
    if status == TIMEOUT:
        return None
    if status != OK or len(resp) != 3:
        raise CardError("sak")
    if crc_a(resp[:1]) != bytes(resp[1:3]):
        raise CardError("crc")
    return resp[0]


def read_uid(pcd, cmd=WUPA, halt_after=True):
    """Wake a card, run anticollision + SELECT on every cascade level, and return its UID.

    Returns None when no card answers.  Raises CardError on a garbled answer.
    With halt_after (default) the card is sent HLTA, so the next WUPA (not
    REQA) wakes it again: a card lying on the reader answers every poll.
    """
    if request(pcd, cmd) is None:
        return None
    uid = bytearray()
    for level in range(3):
        sel = SEL_CMDS[level]
        part = anticollision(pcd, sel)
        if part is None:
            return None
        sak = select(pcd, sel, part)
        if sak is None:
            return None
        if sak & SAK_CASCADE:
            if part[0] != CASCADE_TAG or level == 2:
                raise CardError("cascade")
            uid.extend(part[1:4])
            continue
        # The SAK says the UID is complete: these 4 bytes are UID bytes, even
        # if the first is 0x88 (ISO 14443-3 forbids that, but the SAK and the
        # BCC/CRC checks are what we can trust).
        uid.extend(part[:4])
        if halt_after:
            halt(pcd)
        return bytes(uid)
    raise CardError("cascade")
