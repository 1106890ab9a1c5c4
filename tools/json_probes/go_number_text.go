//go:build ignore

// SPEC.md 1.4 number text of a double in Go: strconv's shortest digits ('e', -1) laid out by
// hand. One hex bit pattern per line on stdin. Run: go run go_number_text.go
package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

func numberText(x float64) string {
	if x == 0 {
		if math.Signbit(x) {
			return "-0.0"
		}
		return "0.0"
	}
	text := strconv.FormatFloat(math.Abs(x), 'e', -1, 64) // "1.2345e+20", "1e-07"
	mantissa, exponent, _ := strings.Cut(text, "e")
	digits := strings.Replace(mantissa, ".", "", 1)
	e, _ := strconv.Atoi(exponent) // accepts "+20" and "-07"
	k, n := e+1, len(digits)       // value = 0.d1...dn x 10^k
	sign := ""
	if x < 0 {
		sign = "-"
	}
	switch {
	case 0 < k && k <= 16 && n <= k:
		return sign + digits + strings.Repeat("0", k-n) + ".0"
	case 0 < k && k <= 16:
		return sign + digits[:k] + "." + digits[k:]
	case -5 < k && k <= 0:
		return sign + "0." + strings.Repeat("0", -k) + digits
	case n > 1:
		return fmt.Sprintf("%s%s.%se%d", sign, digits[:1], digits[1:], k-1)
	default:
		return fmt.Sprintf("%s%se%d", sign, digits, k-1)
	}
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		bits, _ := strconv.ParseUint(strings.TrimSpace(in.Text()), 16, 64)
		fmt.Println(numberText(math.Float64frombits(bits)))
	}
}
