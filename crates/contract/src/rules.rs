//! Field paths for per-tool rules: `a.b`, `a[0].b`, `items[*].pdf`, `items.*.pdf`.

use serde_json::Value;

/// One step of a path.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Segment {
    Key(String),
    Index(usize),
    AnyIndex,
}

/// A parsed field path.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldPath(pub Vec<Segment>);

impl FieldPath {
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let mut segments = Vec::new();
        let mut chars = text.chars().peekable();
        let mut key = String::new();
        let flush = |key: &mut String, segments: &mut Vec<Segment>| {
            if !key.is_empty() {
                let k = std::mem::take(key);
                segments.push(if k == "*" { Segment::AnyIndex } else { Segment::Key(k) });
            }
        };
        while let Some(c) = chars.next() {
            match c {
                '.' => {
                    if key.is_empty() && !matches!(segments.last(), Some(Segment::Index(_) | Segment::AnyIndex)) {
                        return Err("empty segment".into());
                    }
                    flush(&mut key, &mut segments);
                }
                '[' => {
                    flush(&mut key, &mut segments);
                    let inner: String = chars.by_ref().take_while(|c| *c != ']').collect();
                    match inner.as_str() {
                        "*" => segments.push(Segment::AnyIndex),
                        n => segments.push(Segment::Index(n.parse().map_err(|_| format!("`[{n}]` is not an index or [*]"))?)),
                    }
                    if !text.contains(']') {
                        return Err("unclosed `[`".into());
                    }
                }
                ']' => return Err("unexpected `]`".into()),
                c => key.push(c),
            }
        }
        flush(&mut key, &mut segments);
        if segments.is_empty() {
            return Err("empty path".into());
        }
        Ok(Self(segments))
    }

    /// JSON-pointer-like locations (as segment lists with concrete indexes) of every value this
    /// path reaches in `root`.
    pub fn resolve(&self, root: &Value) -> Vec<Vec<Step>> {
        let mut found = Vec::new();
        resolve_into(root, &self.0, &mut Vec::new(), &mut found);
        found
    }
}

/// A concrete step in a located value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
}

fn resolve_into(value: &Value, rest: &[Segment], here: &mut Vec<Step>, found: &mut Vec<Vec<Step>>) {
    let Some((first, rest)) = rest.split_first() else {
        found.push(here.clone());
        return;
    };
    match (first, value) {
        (Segment::Key(k), Value::Object(map)) => {
            if let Some(child) = map.get(k) {
                here.push(Step::Key(k.clone()));
                resolve_into(child, rest, here, found);
                here.pop();
            }
        }
        (Segment::Index(i), Value::Array(items)) => {
            if let Some(child) = items.get(*i) {
                here.push(Step::Index(*i));
                resolve_into(child, rest, here, found);
                here.pop();
            }
        }
        (Segment::AnyIndex, Value::Array(items)) => {
            for (i, child) in items.iter().enumerate() {
                here.push(Step::Index(i));
                resolve_into(child, rest, here, found);
                here.pop();
            }
        }
        _ => {}
    }
}

/// The value at `steps`, mutably.
pub(crate) fn get_mut<'a>(root: &'a mut Value, steps: &[Step]) -> Option<&'a mut Value> {
    steps.iter().try_fold(root, |value, step| match (step, value) {
        (Step::Key(k), Value::Object(map)) => map.get_mut(k),
        (Step::Index(i), Value::Array(items)) => items.get_mut(*i),
        _ => None,
    })
}

/// Renders steps as `a.b[2].c` for `source` fields and warnings.
pub(crate) fn display(prefix: &str, steps: &[Step]) -> String {
    let mut out = prefix.to_owned();
    for step in steps {
        match step {
            Step::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Step::Index(i) => out.push_str(&format!("[{i}]")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(path: &str, value: &Value) -> Vec<String> {
        FieldPath::parse(path).unwrap().resolve(value).iter().map(|s| display("", s)).collect()
    }

    #[test]
    fn paths_parse_and_resolve() {
        let doc = json!({"a": {"b": 1}, "items": [{"pdf": "x"}, {"pdf": "y"}, {"other": 1}], "m": [[1, 2]]});
        assert_eq!(keys("a.b", &doc), vec!["a.b"]);
        assert_eq!(keys("items[*].pdf", &doc), vec!["items[0].pdf", "items[1].pdf"]);
        assert_eq!(keys("items.*.pdf", &doc), vec!["items[0].pdf", "items[1].pdf"]);
        assert_eq!(keys("items[1].pdf", &doc), vec!["items[1].pdf"]);
        assert_eq!(keys("m[0][1]", &doc), vec!["m[0][1]"]);
        assert!(keys("missing.path", &doc).is_empty());
    }

    #[test]
    fn bad_paths_are_refused() {
        for bad in ["", "a..b", "a[x]", "a[", "a]", ".a"] {
            assert!(FieldPath::parse(bad).is_err(), "{bad:?} should be refused");
        }
    }
}
