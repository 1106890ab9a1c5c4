#!/usr/bin/env python3
"""Minimal PROTOCOL.md v1 adapter: hello, reset, tool_id_parse, session_id_parse, digest."""
import decimal, hashlib, json, math, re, sys

SEGMENT = re.compile(r"[a-z0-9][a-z0-9_.-]*")
SURROGATE = re.compile("[\ud800-\udfff]")
DOUBLE_MAX = decimal.Decimal(sys.float_info.max)   # exact


def number(text):                            # SPEC.md 1.4, as json.loads' parse_int/parse_float
    if text == "-0":
        return -0.0
    if not any(c in text for c in ".eE") and len(text) <= 20 and -(2**63) <= int(text) < 2**64:
        return int(text)
    if decimal.Decimal(text).copy_abs() > DOUBLE_MAX:
        raise ValueError("number beyond the finite double range")
    return float(text)                       # correctly rounded


def well_formed(v):                          # no lone surrogate anywhere (json.loads lets them in)
    if isinstance(v, str):
        return not SURROGATE.search(v)
    if isinstance(v, list):
        return all(map(well_formed, v))
    if isinstance(v, dict):
        return all(well_formed(k) and well_formed(x) for k, x in v.items())
    return True


def pairs(items):                            # a repeated key keeps its last value, but the
    obj = dict(items)                        # value it discards must be valid too
    if len(obj) < len(items) and not well_formed([x for _, x in items]):
        raise ValueError("lone surrogate")
    return obj


def refuse(name):
    raise ValueError(f"{name} is not JSON")


def parse_line(raw):                         # bad UTF-8 or a BOM: ValueError from decode / loads
    value = json.loads(raw.decode("utf-8"), parse_int=number, parse_float=number,
                       parse_constant=refuse, object_pairs_hook=pairs)
    if not well_formed(value):
        raise ValueError("lone surrogate")
    return value


class Protocol(Exception):
    """A malformed request: answered with error "Protocol"."""


class Typed(Exception):
    """A SPEC.md rejection: dotted code plus payload."""
    def __init__(self, code, **payload):
        super().__init__(code)
        self.code, self.payload = code, payload


def field(req, name, kind):
    if name not in req:
        raise Protocol(f"missing field {name}")
    value = req[name]
    if kind is int and (type(value) is not int or not 0 <= value < 2**64):
        raise Protocol(f"{name} must be an integer in 0..2^64-1")
    if kind is not int and not isinstance(value, kind):
        raise Protocol(f"{name} has the wrong type")
    return value


def parse_tool_id(raw):                      # SPEC.md 1.1, checks in this order
    size = len(raw.encode())
    if not raw:
        raise Typed("ToolIdError.Empty")
    if size > 200:
        raise Typed("ToolIdError.Oversized", actual=size, limit=200)
    if ":" not in raw:
        raise Typed("ToolIdError.MissingNamespace")
    ns, _, name = raw.partition(":")
    if not (len(ns.encode()) <= 64 and SEGMENT.fullmatch(ns)):
        raise Typed("ToolIdError.InvalidNamespace")
    if not (len(name.encode()) <= 128 and SEGMENT.fullmatch(name)):
        raise Typed("ToolIdError.InvalidName")
    return raw


def parse_session(raw):                      # SPEC.md 1.2
    size = len(raw.encode())
    if not raw:
        raise Typed("SessionIdError.Empty")
    if size > 256:
        raise Typed("SessionIdError.Oversized", actual=size, limit=256)
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in raw):
        raise Typed("SessionIdError.ControlCharacters")
    return raw


def number_text(n):                          # SPEC.md 1.4 (ryu layout)
    if type(n) is int and -(2**63) <= n < 2**64:
        return str(n)
    n = float(n)
    if n == 0:
        return "-0.0" if math.copysign(1.0, n) < 0 else "0.0"
    sign, digit_tuple, exp = decimal.Decimal(repr(n)).as_tuple()   # shortest round-trip digits
    digits = "".join(map(str, digit_tuple))
    exp += len(digits) - len(digits.rstrip("0"))
    digits = digits.rstrip("0")
    k = len(digits) + exp                    # n = 0.d1...dn x 10^k
    s = "-" if sign else ""
    if 0 < k <= 16:
        return s + digits[:k].ljust(k, "0") + "." + (digits[k:] or "0")
    if -5 < k <= 0:
        return s + "0." + "0" * -k + digits
    return s + digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + f"e{k - 1}"


def encode(v):
    frame = lambda tag, n: bytes([tag]) + n.to_bytes(8, "little")
    if v is None:
        return b"\0"
    if isinstance(v, bool):
        return b"\1" + bytes([v])
    if isinstance(v, (int, float)):
        t = number_text(v).encode()
        return frame(2, len(t)) + t
    if isinstance(v, str):
        return frame(3, len(v.encode())) + v.encode()
    if isinstance(v, list):
        return frame(4, len(v)) + b"".join(encode(x) for x in v)
    items = sorted((k.encode(), x) for k, x in v.items())
    return frame(5, len(items)) + b"".join(frame(6, len(k)) + k + encode(x) for k, x in items)


def handle(req, world):
    op = req.get("op")
    if op == "hello":
        return {"protocol": 1, "implementation": "minimal-example 0.1"}
    if op == "reset":
        world.clear()
        return {}
    if op == "tool_id_parse":
        return {"id": parse_tool_id(field(req, "raw", str))}
    if op == "session_id_parse":
        parse_session(field(req, "raw", str))
        return {}
    if op == "digest":
        schema = field(req, "schema", object)
        return {"digest": hashlib.sha256(encode(schema)).hexdigest()}
    raise Protocol("unknown op")


def main():
    world = {}
    for raw in sys.stdin.buffer:
        try:
            req = parse_line(raw.rstrip(b"\n"))
            if not isinstance(req, dict):
                raise Protocol("request must be an object")
            reply = {"ok": True, **handle(req, world)}
        except Typed as err:
            reply = {"ok": False, "error": err.code, "message": err.code, **err.payload}
        except (Protocol, ValueError, RecursionError) as err:   # bad UTF-8, bad JSON, too deep
            reply = {"ok": False, "error": "Protocol", "message": str(err)[:200]}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
