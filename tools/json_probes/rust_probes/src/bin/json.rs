//! serde_json::from_slice into a Value, rendered for tools/json_probes/probes.py.
use serde_json::Value;
use std::io::{BufRead, Write};

fn render(v: &Value) -> String {
    match v {
        Value::Null => "n".into(),
        Value::Bool(b) => if *b { "t" } else { "f" }.into(),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => format!("i{u}"),
            (_, Some(i)) => format!("i{i}"),
            // as_f64 is None where arbitrary_precision kept a literal no f64 can hold.
            _ => n.as_f64().map_or(format!("x{n}"), |f| format!("d{:016x}", f.to_bits())),
        },
        Value::String(s) => format!("s{}", hex(s.as_bytes())),
        Value::Array(a) => format!("[{}]", a.iter().map(render).collect::<Vec<_>>().join(",")),
        Value::Object(o) => {
            let parts: Vec<_> = o.iter().map(|(k, x)| format!("s{}:{}", hex(k.as_bytes()), render(x))).collect();
            format!("{{{}}}", parts.join(","))
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap()).collect()
}

fn main() {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let bytes = unhex(line.unwrap().trim());
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(v) => writeln!(out, "OK {}", render(&v)).unwrap(),
            Err(e) => writeln!(out, "REJECT {e}").unwrap(),
        }
    }
}
