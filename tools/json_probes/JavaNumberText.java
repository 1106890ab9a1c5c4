// SPEC.md 1.4 number text of a double in Java. Shortest digits as ryu finds them: the fewest
// significant digits p such that the exact value rounded down or up to p digits (BigDecimal,
// FLOOR / CEILING) reads back as the same double; of two such candidates the closer one, an even
// last digit on a tie. (Only the correctly rounded candidate is not enough: sometimes it misses
// the double while its neighbour hits it.) PROBE_TOSTRING=1 takes the digits of Double.toString
// instead, which are the shortest only from JDK 19 on.
//   javac JavaNumberText.java && java JavaNumberText
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

public class JavaNumberText {
  static final boolean TOSTRING = "1".equals(System.getenv("PROBE_TOSTRING"));

  static String numberText(double x) {
    if (x == 0) return (1 / x < 0) ? "-0.0" : "0.0";
    BigDecimal shortest = null;
    if (TOSTRING) {
      shortest = new BigDecimal(Double.toString(Math.abs(x)));
    } else {
      BigDecimal exact = new BigDecimal(Math.abs(x));
      for (int p = 1; p <= 17 && shortest == null; p++) {
        BigDecimal down = exact.round(new MathContext(p, RoundingMode.FLOOR));
        BigDecimal up = exact.round(new MathContext(p, RoundingMode.CEILING));
        boolean downHits = down.doubleValue() == Math.abs(x);
        boolean upHits = up.doubleValue() == Math.abs(x);
        if (downHits && upHits) {
          shortest = exact.round(new MathContext(p, RoundingMode.HALF_EVEN));
        } else if (downHits || upHits) {
          shortest = downHits ? down : up;
        }
      }
    }
    shortest = shortest.stripTrailingZeros();
    String digits = shortest.unscaledValue().toString();
    int n = digits.length();
    int k = n - shortest.scale(); // value = 0.d1...dn x 10^k
    String sign = x < 0 ? "-" : "";
    if (0 < k && k <= 16) {
      return n <= k ? sign + digits + "0".repeat(k - n) + ".0" : sign + digits.substring(0, k) + "." + digits.substring(k);
    }
    if (-5 < k && k <= 0) return sign + "0." + "0".repeat(-k) + digits;
    return sign + digits.charAt(0) + (n > 1 ? "." + digits.substring(1) : "") + "e" + (k - 1);
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    StringBuilder out = new StringBuilder();
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      out.append(numberText(Double.longBitsToDouble(Long.parseUnsignedLong(line.trim(), 16)))).append('\n');
    }
    System.out.print(out);
  }
}
