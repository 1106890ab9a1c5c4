//! SPEC.md 1.4 number text of a double, two ways: the ryu crate as it is (PROBE_LAYOUT unset),
//! or shortest digits from `{:e}` laid out by hand (PROBE_LAYOUT=1). One hex bit pattern per line.
use std::io::{BufRead, Write};

fn layout(x: f64) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0.0" } else { "0.0" }.into();
    }
    let text = format!("{:e}", x.abs()); // shortest round-trip digits: "1.2345e20", "1e-7"
    let (mantissa, exponent) = text.split_once('e').unwrap();
    let digits = mantissa.replace('.', "");
    let k = exponent.parse::<i32>().unwrap() + 1; // value = 0.d1...dn x 10^k
    let n = digits.len() as i32;
    let sign = if x < 0.0 { "-" } else { "" };
    if 0 < k && k <= 16 {
        if n <= k {
            return format!("{sign}{digits}{}.0", "0".repeat((k - n) as usize));
        }
        return format!("{sign}{}.{}", &digits[..k as usize], &digits[k as usize..]);
    }
    if -5 < k && k <= 0 {
        return format!("{sign}0.{}{digits}", "0".repeat(-k as usize));
    }
    let rest = if n > 1 {
        format!(".{}", &digits[1..])
    } else {
        String::new()
    };
    format!("{sign}{}{rest}e{}", &digits[..1], k - 1)
}

fn main() {
    let by_hand = std::env::var("PROBE_LAYOUT").as_deref() == Ok("1");
    let mut buffer = ryu::Buffer::new();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in std::io::stdin().lock().lines() {
        let x = f64::from_bits(u64::from_str_radix(line.unwrap().trim(), 16).unwrap());
        let text = if by_hand {
            layout(x)
        } else {
            buffer.format_finite(x).to_string()
        };
        writeln!(out, "{text}").unwrap();
    }
}
