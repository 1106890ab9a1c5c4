// A PROTOCOL.md v1 adapter skeleton for Go, standard library only (Go 1.19 or newer).
//
// It implements the transport, a strict JSON reader with exact numbers (SPEC.md 1.4), Protocol
// errors, hello/reset, tool_id_parse, session_id_parse and digest. Every other op answers
// Protocol ("not implemented in the skeleton") until you wire it to your implementation: the
// place is handle below. Build it and run it through the conformance runner:
//
//	go build -o adapter-skeleton adapter-skeleton.go
//	session-toolset conform --adapter ./adapter-skeleton -k digest --skip skeleton
//
// `--skip skeleton` names the skip file the package ships: the vectors that need ops beyond
// these five. It is the same list for the Node.js skeleton and for one in any other language.
//
// Four traps this file avoids, each of which fails conformance vectors:
//
//   - bufio.Scanner stops at 64 KiB per line (bufio.ErrTooLong) and the corpus sends lines of
//     several hundred kilobytes: lines are read with bufio.Reader.ReadBytes, which has no limit.
//   - encoding/json cannot be used to read requests: it merges 1 and 1.0 (the digest tells them
//     apart), keeps the first of a repeated key's values in a struct, replaces a lone surrogate
//     escape with U+FFFD, and its Decoder.Token reports a line cut off mid-value as a plain
//     io.EOF rather than a syntax error. The reader below is SPEC.md 1.4's grammar, nothing else.
//   - An integer literal beyond [-2^63, 2^64-1] is not an error: it is a double, so it falls
//     back to strconv.ParseFloat (which rounds correctly).
//   - A literal that rounds to the largest double may still exceed it (1.7976931348623158e308):
//     the exact comparison is on the absolute value, or a negative one slips through.
//
// Parsed values: nil, bool, *big.Int (an integer in [-2^63, 2^64-1]), float64 (every other
// number, and -0), string (valid UTF-8), []any, map[string]any (a repeated key keeps its last
// value). `case *big.Int` vs `case float64` is the 1 vs 1.0 distinction.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"math/big"
	"os"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

const maxDepth = 127 // SPEC.md 1.4: counted on the whole line, the request object is level 1

var (
	intMin = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 63))
	intMax = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 64), big.NewInt(1))
	// The exact decimal value of the largest finite double.
	doubleMaxExact, _ = new(big.Float).SetFloat64(math.MaxFloat64).Int(nil)
)

// The PROTOCOL.md ops this skeleton leaves to you: each answers Protocol until it is wired up.
var notImplemented = map[string]bool{
	"tool_id": true, "catalog_insert": true, "catalog_upsert": true, "catalog_remove": true,
	"catalog_rebase_past": true, "catalog_set_generation": true, "catalog_state": true,
	"factory_calls": true, "issue_grant": true, "forge_grant": true, "set_new": true,
	"set_default_core": true, "set_progressive_core": true, "activate": true,
	"activate_many": true, "activate_user": true, "activate_model": true, "revoke": true,
	"rebuild": true, "route": true, "is_stale": true, "snapshot": true, "resolve": true,
	"authorize": true, "authorize_wire": true, "carry_forward_enabled": true,
}

// protocolError is a malformed request: answered with error "Protocol".
type protocolError struct{ message string }

func (e *protocolError) Error() string { return e.message }

// typedError is a SPEC.md rejection: dotted code plus the innermost variant's payload.
type typedError struct {
	code    string
	payload map[string]any
}

func (e *typedError) Error() string { return e.code }

// ---------------------------------------------------------------- strict JSON (SPEC.md 1.4)

type reader struct {
	text []byte
	pos  int
}

func (r *reader) fail(what string) error {
	return &protocolError{fmt.Sprintf("invalid JSON at byte %d: %s", r.pos, what)}
}

func (r *reader) skipWhitespace() {
	// JSON whitespace only: strings.TrimSpace would also eat U+0085, U+00A0, U+2028, ...
	for r.pos < len(r.text) {
		switch r.text[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

func (r *reader) peek() byte {
	if r.pos < len(r.text) {
		return r.text[r.pos]
	}
	return 0
}

func (r *reader) document() (any, error) {
	r.skipWhitespace()
	value, err := r.value(1)
	if err != nil {
		return nil, err
	}
	r.skipWhitespace()
	if r.pos != len(r.text) {
		return nil, r.fail("text after the value")
	}
	return value, nil
}

func (r *reader) value(depth int) (any, error) {
	c := r.peek()
	switch {
	case c == '{' || c == '[':
		if depth > maxDepth {
			return nil, r.fail(fmt.Sprintf("nested deeper than %d", maxDepth))
		}
		if c == '{' {
			return r.object(depth)
		}
		return r.array(depth)
	case c == '"':
		return r.str()
	case c == '-' || (c >= '0' && c <= '9'):
		return r.number()
	}
	for _, word := range []struct {
		text  string
		value any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if bytes.HasPrefix(r.text[r.pos:], []byte(word.text)) {
			r.pos += len(word.text)
			return word.value, nil
		}
	}
	return nil, r.fail("expected a value") // NaN, Infinity, +1, .5, '...' all end here
}

func (r *reader) object(depth int) (any, error) {
	result := map[string]any{}
	r.pos++ // {
	r.skipWhitespace()
	if r.peek() == '}' {
		r.pos++
		return result, nil
	}
	for {
		if r.peek() != '"' {
			return nil, r.fail("expected a string key")
		}
		key, err := r.str()
		if err != nil {
			return nil, err
		}
		r.skipWhitespace()
		if r.peek() != ':' {
			return nil, r.fail("expected ':'")
		}
		r.pos++
		r.skipWhitespace()
		// The discarded value of a repeated key is still parsed in full: invalid text there
		// makes the whole input invalid.
		value, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		result[key] = value
		r.skipWhitespace()
		c := r.peek()
		r.pos++
		if c == '}' {
			return result, nil
		}
		if c != ',' {
			return nil, r.fail("expected ',' or '}'")
		}
		r.skipWhitespace()
	}
}

func (r *reader) array(depth int) (any, error) {
	result := []any{}
	r.pos++ // [
	r.skipWhitespace()
	if r.peek() == ']' {
		r.pos++
		return result, nil
	}
	for {
		r.skipWhitespace()
		value, err := r.value(depth + 1)
		if err != nil {
			return nil, err
		}
		result = append(result, value)
		r.skipWhitespace()
		c := r.peek()
		r.pos++
		if c == ']' {
			return result, nil
		}
		if c != ',' {
			return nil, r.fail("expected ',' or ']'")
		}
	}
}

func (r *reader) hex4() (rune, error) {
	if r.pos+4 > len(r.text) {
		return 0, r.fail("bad \\u escape")
	}
	n, err := strconv.ParseUint(string(r.text[r.pos:r.pos+4]), 16, 32) // no sign, no 0x here
	if err != nil {
		return 0, r.fail("bad \\u escape")
	}
	r.pos += 4
	return rune(n), nil
}

var escapes = map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

func (r *reader) str() (string, error) {
	r.pos++ // opening quote
	var out strings.Builder
	start := r.pos
	for {
		if r.pos >= len(r.text) {
			return "", r.fail("unterminated string")
		}
		c := r.text[r.pos]
		if c == '"' {
			break
		}
		if c < 0x20 {
			return "", r.fail("raw control character in a string")
		}
		if c != '\\' {
			r.pos++ // the line is valid UTF-8 (checked before parsing), so bytes copy as is
			continue
		}
		out.Write(r.text[start:r.pos])
		r.pos++ // backslash
		e := r.peek()
		r.pos++
		if plain, ok := escapes[e]; ok {
			out.WriteByte(plain)
		} else if e == 'u' {
			unit, err := r.hex4()
			if err != nil {
				return "", err
			}
			switch {
			case unit >= 0xdc00 && unit <= 0xdfff:
				return "", r.fail("lone low surrogate escape")
			case unit >= 0xd800 && unit <= 0xdbff:
				if !bytes.HasPrefix(r.text[r.pos:], []byte("\\u")) {
					return "", r.fail("lone high surrogate escape")
				}
				r.pos += 2
				low, err := r.hex4()
				if err != nil {
					return "", err
				}
				if low < 0xdc00 || low > 0xdfff {
					return "", r.fail("lone high surrogate escape")
				}
				out.WriteRune(utf16.DecodeRune(unit, low))
			default:
				out.WriteRune(unit)
			}
		} else {
			return "", r.fail("bad escape")
		}
		start = r.pos
	}
	out.Write(r.text[start:r.pos])
	r.pos++ // closing quote
	return out.String(), nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (r *reader) digits() int {
	start := r.pos
	for r.pos < len(r.text) && isDigit(r.text[r.pos]) {
		r.pos++
	}
	return r.pos - start
}

func (r *reader) number() (any, error) {
	start := r.pos
	if r.peek() == '-' {
		r.pos++
	}
	switch c := r.peek(); {
	case c == '0':
		r.pos++
	case c >= '1' && c <= '9':
		r.digits()
	default:
		return nil, r.fail("bad number")
	}
	integer := true
	if r.peek() == '.' {
		r.pos++
		if r.digits() == 0 {
			return nil, r.fail("bad number")
		}
		integer = false
	}
	if c := r.peek(); c == 'e' || c == 'E' {
		r.pos++
		if c := r.peek(); c == '+' || c == '-' {
			r.pos++
		}
		if r.digits() == 0 {
			return nil, r.fail("bad number")
		}
		integer = false
	}
	if isDigit(r.peek()) {
		return nil, r.fail("bad number") // "01"
	}
	literal := string(r.text[start:r.pos])
	if integer {
		if literal == "-0" {
			return math.Copysign(0, -1), nil // the double -0.0, as the original stores it
		}
		// At most 20 digits can be in range; the length check keeps SetString cheap.
		if len(strings.TrimPrefix(literal, "-")) <= 20 {
			n, _ := new(big.Int).SetString(literal, 10)
			if n.Cmp(intMin) >= 0 && n.Cmp(intMax) <= 0 {
				return n, nil
			}
		}
		// Beyond 64 bits: not an error, a double (ParseFloat below).
	}
	value, err := strconv.ParseFloat(literal, 64)
	if math.IsInf(value, 0) || (err != nil && !errors.Is(err, strconv.ErrRange)) {
		return nil, r.fail("number beyond the finite double range")
	}
	if math.Abs(value) == math.MaxFloat64 && exceedsDoubleMax(literal) {
		return nil, r.fail("number beyond the finite double range")
	}
	return value, nil
}

// exceedsDoubleMax: whether |literal| > the exact largest double, e.g. 1.7976931348623158e308
// (which ParseFloat rounds down to it). The sign is dropped first: -1.7976931348623158e308 is
// just as far out of range.
func exceedsDoubleMax(literal string) bool {
	literal = strings.TrimPrefix(literal, "-")
	mantissa, exponent, _ := strings.Cut(strings.ToLower(literal), "e")
	whole, fraction, _ := strings.Cut(mantissa, ".")
	exp := 0
	if exponent != "" {
		var err error
		if exp, err = strconv.Atoi(exponent); err != nil {
			return true
		}
	}
	digits, _ := new(big.Int).SetString(whole+fraction, 10)
	scale := exp - len(fraction) // |value| = digits * 10^scale
	ten := big.NewInt(10)
	if scale >= 0 {
		return new(big.Int).Mul(digits, new(big.Int).Exp(ten, big.NewInt(int64(scale)), nil)).Cmp(doubleMaxExact) > 0
	}
	return digits.Cmp(new(big.Int).Mul(doubleMaxExact, new(big.Int).Exp(ten, big.NewInt(int64(-scale)), nil))) > 0
}

// parseLine decodes one request line (bytes, newline removed) into a JSON value.
func parseLine(line []byte) (any, error) {
	if !utf8.Valid(line) {
		return nil, &protocolError{"request line is not valid UTF-8"}
	}
	return (&reader{text: line}).document()
}

// ---------------------------------------------------------------- identities (SPEC.md 1.1, 1.2)

func isSegment(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		lowerOrDigit := (c >= 'a' && c <= 'z') || isDigit(c)
		if !lowerOrDigit && (i == 0 || (c != '_' && c != '.' && c != '-')) {
			return false
		}
	}
	return true
}

func parseToolID(raw string) (string, error) {
	size := len(raw) // Go strings are UTF-8 bytes: len is the byte length SPEC.md counts
	switch {
	case raw == "":
		return "", &typedError{code: "ToolIdError.Empty"}
	case size > 200:
		return "", &typedError{"ToolIdError.Oversized", map[string]any{"actual": size, "limit": 200}}
	}
	ns, name, found := strings.Cut(raw, ":")
	if !found {
		return "", &typedError{code: "ToolIdError.MissingNamespace"}
	}
	if !(len(ns) <= 64 && isSegment(ns)) {
		return "", &typedError{code: "ToolIdError.InvalidNamespace"}
	}
	if !(len(name) <= 128 && isSegment(name)) {
		return "", &typedError{code: "ToolIdError.InvalidName"}
	}
	return raw, nil // verbatim: never lowercased, trimmed or sanitized
}

func parseSessionID(raw string) error {
	size := len(raw)
	switch {
	case raw == "":
		return &typedError{code: "SessionIdError.Empty"}
	case size > 256:
		return &typedError{"SessionIdError.Oversized", map[string]any{"actual": size, "limit": 256}}
	}
	for _, r := range raw {
		if r <= 0x1f || (r >= 0x7f && r <= 0x9f) { // C0, DEL, C1 (SPEC.md 1.2)
			return &typedError{code: "SessionIdError.ControlCharacters"}
		}
	}
	return nil
}

// ---------------------------------------------------------------- digest (SPEC.md 1.4)

// numberText is the canonical number text: an integer in decimal, a double laid out as ryu does.
func numberText(v any) string {
	if n, ok := v.(*big.Int); ok {
		return n.String()
	}
	f := v.(float64)
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	// 'e' with precision -1 gives the shortest round-trip digits, "d.ddde+XX".
	mantissa, exponent, _ := strings.Cut(strconv.FormatFloat(math.Abs(f), 'e', -1, 64), "e")
	digits := strings.Replace(mantissa, ".", "", 1)
	e, _ := strconv.Atoi(exponent)
	k := e + 1 // value = 0.d1...dn x 10^k
	sign := ""
	if f < 0 {
		sign = "-"
	}
	switch {
	case k > 0 && k <= 16:
		whole, fraction := digits, "0"
		if len(digits) > k {
			whole, fraction = digits[:k], digits[k:]
		} else {
			whole += strings.Repeat("0", k-len(digits))
		}
		return sign + whole + "." + fraction
	case k > -5 && k <= 0:
		return sign + "0." + strings.Repeat("0", -k) + digits
	}
	rest := ""
	if len(digits) > 1 {
		rest = "." + digits[1:]
	}
	return sign + digits[:1] + rest + "e" + strconv.Itoa(k-1)
}

func frame(h hash.Hash, tag byte, n int) {
	var out [9]byte
	out[0] = tag
	binary.LittleEndian.PutUint64(out[1:], uint64(n))
	h.Write(out[:])
}

// encode feeds the canonical length-framed encoding of a parsed value into h, depth-first.
func encode(v any, h hash.Hash) {
	switch x := v.(type) {
	case nil:
		h.Write([]byte{0})
	case bool:
		b := byte(0)
		if x {
			b = 1
		}
		h.Write([]byte{1, b})
	case *big.Int, float64:
		text := numberText(x)
		frame(h, 2, len(text))
		io.WriteString(h, text)
	case string:
		frame(h, 3, len(x))
		io.WriteString(h, x)
	case []any:
		frame(h, 4, len(x))
		for _, item := range x {
			encode(item, h)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys) // Go compares strings bytewise: ascending UTF-8 byte order
		frame(h, 5, len(keys))
		for _, k := range keys {
			frame(h, 6, len(k))
			io.WriteString(h, k)
			encode(x[k], h)
		}
	}
}

func digest(v any) string {
	h := sha256.New()
	encode(v, h)
	return hex.EncodeToString(h.Sum(nil))
}

// ---------------------------------------------------------------- requests (PROTOCOL.md)

func field(req map[string]any, name string, wantString bool) (any, error) {
	value, ok := req[name]
	if !ok {
		return nil, &protocolError{"missing field " + name}
	}
	if _, isString := value.(string); wantString && !isString {
		return nil, &protocolError{name + " must be a string"}
	}
	return value, nil // otherwise every JSON value, null included
}

// world is your catalog, sets, grants and counters.
type world struct{}

func handle(req map[string]any, w *world) (map[string]any, error) {
	op, _ := req["op"].(string)
	switch op {
	case "hello":
		return map[string]any{"protocol": 1, "implementation": "go-adapter-skeleton 0.1"}, nil
	case "reset":
		*w = world{}
		return map[string]any{}, nil
	case "tool_id_parse":
		raw, err := field(req, "raw", true)
		if err != nil {
			return nil, err
		}
		id, err := parseToolID(raw.(string))
		if err != nil {
			return nil, err
		}
		return map[string]any{"id": id}, nil
	case "session_id_parse":
		raw, err := field(req, "raw", true)
		if err != nil {
			return nil, err
		}
		return map[string]any{}, parseSessionID(raw.(string))
	case "digest":
		schema, err := field(req, "schema", false)
		if err != nil {
			return nil, err
		}
		return map[string]any{"digest": digest(schema)}, nil
	}
	if notImplemented[op] {
		return nil, &protocolError{"op " + op + " is not implemented in the skeleton"}
	}
	return nil, &protocolError{"unknown op"} // also a missing op or one that is not a string
}

// answer: one request line in, one reply object out.
func answer(line []byte, w *world) map[string]any {
	value, err := parseLine(line)
	var reply map[string]any
	if err == nil {
		req, isObject := value.(map[string]any)
		if !isObject {
			err = &protocolError{"a request must be a JSON object"}
		} else {
			reply, err = handle(req, w)
		}
	}
	var typed *typedError
	var malformed *protocolError
	switch {
	case err == nil:
		reply["ok"] = true
		return reply
	case errors.As(err, &typed):
		out := map[string]any{"ok": false, "error": typed.code, "message": typed.code}
		for k, v := range typed.payload {
			out[k] = v
		}
		return out
	case errors.As(err, &malformed):
		return map[string]any{"ok": false, "error": "Protocol", "message": truncate(malformed.message, 200)}
	}
	return map[string]any{"ok": false, "error": "Protocol", "message": truncate("internal error: "+err.Error(), 200)}
}

func truncate(s string, limit int) string {
	for len(s) > limit {
		_, size := utf8.DecodeLastRuneInString(s)
		s = s[:len(s)-size]
	}
	return s
}

// ---------------------------------------------------------------- transport

func main() {
	in := bufio.NewReader(os.Stdin) // ReadBytes has no line-length limit (bufio.Scanner has)
	out := bufio.NewWriter(os.Stdout)
	w := &world{}
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 || err == nil { // a last line without "\n" is a line too
			reply, marshalErr := json.Marshal(answer(bytes.TrimSuffix(line, []byte("\n")), w))
			if marshalErr != nil {
				panic(marshalErr)
			}
			out.Write(append(reply, '\n'))
			if in.Buffered() == 0 { // nothing more read yet: the runner may be waiting
				if out.Flush() != nil {
					return // the runner went away
				}
			}
		}
		if err != nil {
			out.Flush()
			return // io.EOF: the runner closed stdin
		}
	}
}
