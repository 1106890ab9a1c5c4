//go:build ignore

// encoding/json as docs/implementers.md recommends it for Go: a Decoder with UseNumber, the
// value built from Token() so every number (kept or discarded by a repeated key) is seen, plus
// the two checks encoding/json does not make (it silently turns invalid UTF-8 and lone surrogate
// escapes into U+FFFD). Set PROBE_PLAIN=1 to leave those two checks out.
package main

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

var plain = os.Getenv("PROBE_PLAIN") == "1"
var maxExact = new(big.Rat).SetFloat64(math.MaxFloat64) // exact, not the shortest digits

// loneSurrogate reports a \uD800-\uDFFF escape that is not part of a high+low pair.
func loneSurrogate(text []byte) bool {
	inString := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if !inString {
			inString = c == '"'
			continue
		}
		if c == '"' {
			inString = false
		} else if c == '\\' && i+1 < len(text) {
			if text[i+1] != 'u' || i+6 > len(text) {
				i++
				continue
			}
			unit, err := strconv.ParseUint(string(text[i+2:i+6]), 16, 16)
			if err != nil {
				return false // invalid escape: the decoder refuses it
			}
			i += 5
			if unit >= 0xDC00 && unit <= 0xDFFF {
				return true
			}
			if unit >= 0xD800 && unit <= 0xDBFF {
				if i+7 > len(text) || text[i+1] != '\\' || text[i+2] != 'u' {
					return true
				}
				low, err := strconv.ParseUint(string(text[i+3:i+7]), 16, 16)
				if err != nil || low < 0xDC00 || low > 0xDFFF {
					return true
				}
				i += 6
			}
		}
	}
	return false
}

type double float64

func number(n json.Number) (any, error) {
	text := n.String()
	if !strings.ContainsAny(text, ".eE") && text != "-0" {
		if u, err := strconv.ParseUint(text, 10, 64); err == nil {
			return u, nil
		}
		if i, err := strconv.ParseInt(text, 10, 64); err == nil {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(text, 64) // correctly rounded; ErrRange beyond the range
	if err != nil {
		return nil, err
	}
	if math.Abs(f) == math.MaxFloat64 {
		exact, _ := new(big.Rat).SetString(text)
		if exact.Abs(exact).Cmp(maxExact) > 0 {
			return nil, errors.New("beyond the finite double range")
		}
	}
	return double(f), nil
}

type object struct {
	keys   []string
	values map[string]any
}

func value(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '[' {
			list := []any{}
			for dec.More() {
				v, err := value(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
		obj := object{values: map[string]any{}}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := value(dec)
			if err != nil {
				return nil, err
			}
			key := k.(string)
			if _, seen := obj.values[key]; !seen {
				obj.keys = append(obj.keys, key)
			}
			obj.values[key] = v // last wins
		}
		_, err := dec.Token()
		return obj, err
	case json.Number:
		return number(t)
	default:
		return t, nil // nil, bool, string
	}
}

func parse(text []byte) (any, error) {
	if !plain && !utf8.Valid(text) {
		return nil, errors.New("invalid UTF-8")
	}
	if !plain && loneSurrogate(text) {
		return nil, errors.New("lone surrogate escape")
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	v, err := value(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the value")
	}
	return v, nil
}

func render(v any) string {
	switch t := v.(type) {
	case nil:
		return "n"
	case bool:
		if t {
			return "t"
		}
		return "f"
	case uint64:
		return fmt.Sprintf("i%d", t)
	case int64:
		return fmt.Sprintf("i%d", t)
	case double:
		return fmt.Sprintf("d%016x", math.Float64bits(float64(t)))
	case string:
		return "s" + hex.EncodeToString([]byte(t))
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = render(x)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case object:
		parts := make([]string, len(t.keys))
		for i, k := range t.keys {
			parts[i] = render(k) + ":" + render(t.values[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	return "?"
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<24)
	for in.Scan() {
		text, _ := hex.DecodeString(in.Text())
		v, err := parse(text)
		if err != nil {
			msg := err.Error()
			if len(msg) > 80 {
				msg = msg[:80]
			}
			fmt.Println("REJECT", msg)
		} else {
			fmt.Println("OK", render(v))
		}
	}
}
