//! The checked-in header against filcrypto.h without FVM (the ABI spec's
//! appendices, copied into tests/abi/): every function prototype, every struct
//! tag, typedef and field list, every enum constant and value. Whitespace and
//! `const T *` vs `T const *` spelling are normalized; nothing else is.

use std::collections::{BTreeMap, BTreeSet};

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// One spelling for the same C: no comments, single spaces, `T const *`, no
/// spaces around `*`, brackets or separators.
fn normalize(c: &str) -> String {
    let mut s = String::new();
    let mut rest = c;
    while let Some(i) = rest.find("/*") {
        s.push_str(&rest[..i]);
        rest = rest[i..].find("*/").map_or("", |j| &rest[i + j + 2..]);
    }
    s.push_str(rest);
    let mut s: String = s.lines().map(|l| l.split("//").next().unwrap()).collect::<Vec<_>>().join(" ");
    const SEPARATORS: [&str; 10] = ["*", "(", ")", ",", ";", "{", "}", "[", "]", "="];
    for sep in SEPARATORS {
        s = s.replace(sep, &format!(" {sep} "));
    }
    let mut words: Vec<&str> = s.split_whitespace().collect();
    // `const T` (a type name follows) becomes `T const`.
    let mut i = 0;
    while i + 1 < words.len() {
        if words[i] == "const" && !SEPARATORS.contains(&words[i + 1]) {
            words.swap(i, i + 1);
            i += 2;
        } else {
            i += 1;
        }
    }
    let mut s = words.join(" ");
    for sep in SEPARATORS {
        s = s.replace(&format!(" {sep}"), sep).replace(&format!("{sep} "), sep);
    }
    s
}

fn header() -> String {
    normalize(&read("include/cuzk.h"))
}

/// The header's top-level declarations, split at `;` outside braces.
fn declarations(h: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0);
    for ch in h.chars() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if ch == ';' && depth == 0 {
            out.push(std::mem::take(&mut cur).trim().to_string());
        } else {
            cur.push(ch);
        }
    }
    out
}

fn function_name(decl: &str) -> Option<&str> {
    let open = decl.find('(')?;
    let head = &decl[..open];
    let name = head.rsplit(|c: char| c == ' ' || c == '*').next()?;
    (!decl.starts_with("typedef") && !decl.starts_with('#')).then_some(name)
}

#[test]
fn every_filcrypto_function_has_its_exact_prototype() {
    let decls: BTreeSet<String> = declarations(&header()).into_iter().collect();
    let spec: Vec<String> = read("tests/abi/filcrypto-functions.txt").lines().map(normalize).collect();
    assert_eq!(spec.len(), 112, "the spec lists 112 prototypes");
    let missing: Vec<_> = spec.iter().filter(|p| !decls.contains(p.trim_end_matches(';'))).collect();
    assert!(missing.is_empty(), "prototypes missing from or different in include/cuzk.h:\n{missing:#?}");
    // Anything else the header exports is a cuzk extension and says so.
    let spec_names: BTreeSet<&str> = spec.iter().filter_map(|p| function_name(p)).collect();
    let extra: Vec<_> = decls
        .iter()
        .filter_map(|d| function_name(d))
        .filter(|n| !spec_names.contains(n) && !n.starts_with("cuzk_") && *n != "destroy_finalize_ticket_response")
        .collect();
    assert!(extra.is_empty(), "functions in include/cuzk.h that filcrypto.h does not have: {extra:?}");
}

#[test]
fn every_filcrypto_struct_has_its_tag_typedef_and_fields() {
    let h = header();
    let types = read("tests/abi/filcrypto-types.txt");
    let mut checked = 0;
    for line in types.lines().filter(|l| l.starts_with("struct ")) {
        let (tag, rest) = line["struct ".len()..].split_once(" -> ").expect("`struct TAG -> Type_t { ... }`");
        let (name, fields) = rest.split_once(' ').unwrap();
        let body = normalize(fields);
        let want = if tag == "(anonymous)" {
            // A tag the spec leaves out is not part of the contract.
            format!("{body}{name};")
        } else {
            format!("typedef struct {tag}{body}{name};")
        };
        assert!(h.contains(&want), "include/cuzk.h lacks `{want}`");
        checked += 1;
    }
    assert!(checked >= 40, "only {checked} structs read from the spec");
}

/// `enum Name { A, B = 3, C }` as (constant, value) pairs with C's numbering.
fn enum_constants(body: &str) -> Vec<(String, i64)> {
    let mut next = 0;
    body.split(',')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(|c| {
            let (name, value) = match c.split_once('=') {
                Some((n, v)) => (n.trim(), v.trim().parse().expect("an integer enum value")),
                None => (c, next),
            };
            next = value + 1;
            (name.to_string(), value)
        })
        .collect()
}

fn enums_in(c: &str) -> BTreeMap<String, Vec<(String, i64)>> {
    let mut out = BTreeMap::new();
    let mut rest = c;
    while let Some(i) = rest.find("enum ") {
        rest = &rest[i + 5..];
        let (Some(open), Some(close)) = (rest.find('{'), rest.find('}')) else { break };
        let name = rest[..open].trim().to_string();
        out.insert(name, enum_constants(&rest[open + 1..close]));
        rest = &rest[close..];
    }
    out
}

#[test]
fn every_filcrypto_enum_has_its_constants_and_values_and_an_int32_typedef() {
    let h = header();
    let ours = enums_in(&h);
    let spec = enums_in(&normalize(&read("tests/abi/filcrypto-types.txt")));
    assert_eq!(spec.len(), 5, "the spec has 5 enums");
    for (name, constants) in &spec {
        assert_eq!(ours.get(name), Some(constants), "enum {name}");
        assert!(h.contains(&format!("typedef int32_t {name}_t;")), "typedef int32_t {name}_t");
    }
}
