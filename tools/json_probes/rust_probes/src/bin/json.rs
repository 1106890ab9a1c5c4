//! serde_json::from_slice into a Value, rendered for tools/json_probes/probes.py. With
//! PROBE_SCAN=1 the line is first scanned for a number literal beyond the largest double that
//! serde_json (float_roundtrip) would round down to f64::MAX, e.g. 1.7976931348623158e308.
use serde_json::Value;
use std::io::{BufRead, Write};

/// The exact decimal digits of f64::MAX (309 of them, all before the point).
const MAX_DIGITS: &str = "179769313486231570814527423731704356798070567525844996598917476803157260780028538760589558632766878171540458953514382464234321326889464182768467546703537516986049910576551282076245490090389328944075868508455133942304583236903222948165808559332123348274797826204144723168738177180919299881250404026184124858368";

/// Whether a number literal that parses to +-f64::MAX is larger in magnitude than f64::MAX.
fn beyond_max(literal: &str) -> bool {
    let body = literal.trim_start_matches('-');
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], body[i + 1..].parse::<i64>().unwrap_or(0)),
        None => (body, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    let leading = digits.len() - digits.trim_start_matches('0').len();
    let digits = digits.trim_start_matches('0');
    // Integer digits of the value: it is ~1.8e308, so exactly 309 like MAX_DIGITS.
    let point = whole.len() as i64 - leading as i64 + exponent;
    if point != 309 {
        return point > 309;
    }
    let width = digits.len().max(MAX_DIGITS.len());
    format!("{digits:0<width$}") > format!("{MAX_DIGITS:0<width$}")
}

/// Scan the number tokens outside strings; any that rounds to +-f64::MAX from beyond it fails.
fn number_beyond_max(text: &[u8]) -> bool {
    let (mut i, mut in_string) = (0, false);
    while i < text.len() {
        let c = text[i];
        if in_string {
            match c {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
            i += 1;
        } else if c == b'"' {
            in_string = true;
            i += 1;
        } else if c == b'-' || c.is_ascii_digit() {
            let start = i;
            while i < text.len()
                && matches!(text[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
            {
                i += 1;
            }
            let literal = std::str::from_utf8(&text[start..i]).unwrap_or("");
            if literal
                .parse::<f64>()
                .map_or(false, |f| f.abs() == f64::MAX)
                && beyond_max(literal)
            {
                return true;
            }
        } else {
            i += 1;
        }
    }
    false
}

fn render(v: &Value) -> String {
    match v {
        Value::Null => "n".into(),
        Value::Bool(b) => if *b { "t" } else { "f" }.into(),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => format!("i{u}"),
            (_, Some(i)) => format!("i{i}"),
            // as_f64 is None where arbitrary_precision kept a literal no f64 can hold.
            _ => n
                .as_f64()
                .map_or(format!("x{n}"), |f| format!("d{:016x}", f.to_bits())),
        },
        Value::String(s) => format!("s{}", hex(s.as_bytes())),
        Value::Array(a) => format!("[{}]", a.iter().map(render).collect::<Vec<_>>().join(",")),
        Value::Object(o) => {
            let parts: Vec<_> = o
                .iter()
                .map(|(k, x)| format!("s{}:{}", hex(k.as_bytes()), render(x)))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

fn main() {
    let scan = std::env::var("PROBE_SCAN").as_deref() == Ok("1");
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let bytes = unhex(line.unwrap().trim());
        if scan && number_beyond_max(&bytes) {
            writeln!(out, "REJECT number beyond the finite double range").unwrap();
            continue;
        }
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(v) => writeln!(out, "OK {}", render(&v)).unwrap(),
            Err(e) => writeln!(out, "REJECT {e}").unwrap(),
        }
    }
}
