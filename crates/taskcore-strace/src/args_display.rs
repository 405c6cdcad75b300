//! A parsed argument written back in strace's notation, for messages
//! (`number out of range: 0x1ffffffffffffffff`).

use std::fmt;

use crate::args::Value;

/// Writes `items` separated by `sep`.
fn list(f: &mut fmt::Formatter<'_>, items: &[Value<'_>], sep: &str) -> fmt::Result {
    for (i, v) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(sep)?;
        }
        write!(f, "{v}")?;
    }
    Ok(())
}

impl fmt::Display for Value<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(n) => write!(f, "{n}"),
            Value::Str { text, truncated } => {
                write!(f, "\"{}\"", text.escape_default())?;
                if *truncated {
                    f.write_str("...")?;
                }
                Ok(())
            }
            Value::Sym(s) | Value::Raw(s) => f.write_str(s),
            Value::Or(parts) => list(f, parts, "|"),
            Value::Shl(a, b) => write!(f, "{a}<<{b}"),
            Value::Array { items, more } => {
                f.write_str("[")?;
                list(f, items, ", ")?;
                if *more {
                    f.write_str(", ...")?;
                }
                f.write_str("]")
            }
            Value::NotSet(items) => {
                f.write_str("~[")?;
                list(f, items, " ")?;
                f.write_str("]")
            }
            Value::Struct { fields, more } => {
                f.write_str("{")?;
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    match k {
                        Some(k) => write!(f, "{k}={v}")?,
                        None => write!(f, "{v}")?,
                    }
                }
                if *more {
                    f.write_str(", ...")?;
                }
                f.write_str("}")
            }
            Value::Named(k, v) => write!(f, "{k}={v}"),
            Value::Changed(a, b) => write!(f, "{a} => {b}"),
            Value::Call(name, args) => {
                write!(f, "{name}(")?;
                list(f, args, ", ")?;
                f.write_str(")")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_written_as_strace_prints_them() {
        let v = Value::Or(vec![
            Value::Sym("CLONE_VM".into()),
            Value::Shl(
                Box::new(Value::Int(21)),
                Box::new(Value::Sym("MAP_HUGE_SHIFT".into())),
            ),
        ]);
        assert_eq!(v.to_string(), "CLONE_VM|21<<MAP_HUGE_SHIFT");
        let s = Value::Struct {
            fields: vec![
                (Some("si_signo".into()), Value::Sym("SIGCHLD".into())),
                (None, Value::NotSet(vec![Value::Sym("KILL".into())])),
            ],
            more: true,
        };
        assert_eq!(s.to_string(), "{si_signo=SIGCHLD, ~[KILL], ...}");
    }
}
