// Jackson's streaming JsonParser (jackson-core, Debian's libjackson2-core-java 2.14.1) as
// docs/implementers.md recommends it for Java: the value built from tokens, numbers from their
// text (BigInteger / BigDecimal), plus the checks Jackson does not make. PROBE_PLAIN=1 leaves the
// checks out and takes Jackson's own number values, to show what they are for.
//   javac -cp /usr/share/java/jackson-core.jar JacksonProbe.java
//   java -cp /usr/share/java/jackson-core.jar:. JacksonProbe
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class JacksonProbe {
  static final boolean PLAIN = "1".equals(System.getenv("PROBE_PLAIN"));
  static final BigInteger INT_MIN = BigInteger.valueOf(Long.MIN_VALUE);
  static final BigInteger INT_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
  static final BigDecimal DOUBLE_MAX = new BigDecimal(Double.MAX_VALUE); // exact
  static final JsonFactory FACTORY = new JsonFactory();

  record Dbl(double value) {}

  static Object value(JsonParser p, JsonToken t, int depth) throws Exception {
    if ((t == JsonToken.START_ARRAY || t == JsonToken.START_OBJECT) && depth > 127 && !PLAIN) {
      throw new Exception("nested deeper than 127");
    }
    switch (t) {
      case START_ARRAY: {
        List<Object> list = new ArrayList<>();
        for (JsonToken x = p.nextToken(); x != JsonToken.END_ARRAY; x = p.nextToken()) {
          list.add(value(p, x, depth + 1));
        }
        return list;
      }
      case START_OBJECT: {
        Map<String, Object> map = new LinkedHashMap<>();
        for (JsonToken x = p.nextToken(); x != JsonToken.END_OBJECT; x = p.nextToken()) {
          String key = string(p.getCurrentName());
          map.put(key, value(p, p.nextToken(), depth + 1)); // last wins
        }
        return map;
      }
      case VALUE_STRING: return string(p.getText());
      case VALUE_NUMBER_INT: return PLAIN ? plainNumber(p) : integer(p.getText());
      case VALUE_NUMBER_FLOAT: return PLAIN ? plainNumber(p) : dbl(p.getText());
      case VALUE_TRUE: return Boolean.TRUE;
      case VALUE_FALSE: return Boolean.FALSE;
      case VALUE_NULL: return null;
      default: throw new Exception("unexpected token " + t);
    }
  }

  static Object plainNumber(JsonParser p) throws Exception {
    switch (p.getNumberType()) {
      case INT: case LONG: case BIG_INTEGER: return p.getBigIntegerValue();
      default: return new Dbl(p.getDoubleValue());
    }
  }

  static Object integer(String text) throws Exception {
    if (text.equals("-0")) return new Dbl(-0.0);
    BigInteger n = new BigInteger(text);
    if (n.compareTo(INT_MIN) >= 0 && n.compareTo(INT_MAX) <= 0) return n;
    return dbl(text);
  }

  static Object dbl(String text) throws Exception {
    double x = Double.parseDouble(text); // correctly rounded; 0.0 on underflow
    // Only a result of +-MAX_VALUE needs the exact comparison (BigDecimal would throw on an
    // exponent beyond int, e.g. 1e-99999999999, which is simply 0.0).
    if (Double.isInfinite(x)
        || (Math.abs(x) == Double.MAX_VALUE && new BigDecimal(text).abs().compareTo(DOUBLE_MAX) > 0)) {
      throw new Exception("beyond the finite double range");
    }
    return new Dbl(x);
  }

  static String string(String s) throws Exception {
    if (PLAIN) return s;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new Exception("lone surrogate");
      }
    }
    return s;
  }

  static Object parse(byte[] bytes) throws Exception {
    if (!PLAIN && bytes.length >= 3 && (bytes[0] & 0xff) == 0xef && (bytes[1] & 0xff) == 0xbb
        && (bytes[2] & 0xff) == 0xbf) {
      throw new Exception("a BOM is not JSON whitespace"); // Jackson skips it silently
    }
    try (JsonParser p = FACTORY.createParser(bytes)) {
      Object v = value(p, p.nextToken(), 1);
      if (p.nextToken() != null) throw new Exception("text after the value");
      return v;
    }
  }

  static String render(Object v) {
    if (v == null) return "n";
    if (v instanceof Boolean b) return b ? "t" : "f";
    if (v instanceof BigInteger n) return "i" + n;
    if (v instanceof Dbl d) return String.format("d%016x", Double.doubleToRawLongBits(d.value()));
    if (v instanceof String s) {
      StringBuilder out = new StringBuilder("u");
      for (char c : s.toCharArray()) out.append(String.format("%04x", (int) c));
      return out.toString();
    }
    StringBuilder out = new StringBuilder();
    if (v instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) out.append(i > 0 ? "," : "").append(render(list.get(i)));
      return out.append(']').toString();
    }
    out.append('{');
    boolean first = true;
    for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
      out.append(first ? "" : ",").append(render(e.getKey())).append(':').append(render(e.getValue()));
      first = false;
    }
    return out.append('}').toString();
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      String out;
      try {
        out = "OK " + render(parse(HexFormat.of().parseHex(line.trim())));
      } catch (Exception | StackOverflowError e) {
        String msg = String.valueOf(e instanceof StackOverflowError ? "CRASH stack overflow" : e.getMessage());
        out = "REJECT " + msg.replace('\n', ' ').substring(0, Math.min(80, msg.length()));
      }
      System.out.println(out);
    }
  }
}
