use super::*;
use std::collections::hash_map::DefaultHasher;

fn hash_of<T: Hash + ?Sized>(t: &T) -> u64 {
    let mut h = DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}

/// Strings around the inline limit, long ones, and multi-byte chars on either side of byte 15.
fn samples() -> Vec<String> {
    let mut v: Vec<String> = [0, 1, 2, 14, 15, 16, 17, 31, 32, 100, 5000]
        .iter()
        .map(|&n| (0..n).map(|i| (b'a' + (i % 26) as u8) as char).collect())
        .collect();
    // "é" is 2 bytes: 14 + 2 = 16 bytes (the char straddles bytes 14 and 15); 13 + 2 = 15.
    v.push(format!("{}é", "x".repeat(14)));
    v.push(format!("{}é", "x".repeat(13)));
    // A 4-byte char over bytes 12..16, and one ending exactly at 15.
    v.push(format!("{}😀", "y".repeat(12)));
    v.push(format!("{}😀", "y".repeat(11)));
    v.push("😀".repeat(4));
    v.push("€".repeat(5));
    v.push("\0\0".to_owned());
    v
}

#[test]
fn a_str_is_16_bytes() {
    assert_eq!(size_of::<Str>(), 16);
    assert_eq!(size_of::<Heap>(), 16);
}

#[test]
fn every_constructor_keeps_the_text_and_places_it_by_length() {
    for s in samples() {
        let built = [
            Str::from(s.as_str()),
            Str::from(s.clone()),
            Str::from(s.clone().into_boxed_str()),
        ];
        for t in &built {
            assert_eq!(t.as_str(), s, "{s:?}");
            assert_eq!(t.len(), s.len());
            assert_eq!(t.is_inline(), s.len() <= INLINE_MAX, "{s:?}");
            assert_eq!(&**t, s.as_str());
            assert_eq!(format!("{t}"), s);
            assert_eq!(format!("{t:?}"), format!("{s:?}"));
        }
    }
    assert_eq!(Str::default(), "");
    assert!(Str::default().is_inline());
}

#[test]
fn clones_are_equal_and_independent() {
    for s in samples() {
        let a = Str::from(s.as_str());
        let b = a.clone();
        assert_eq!(a, b);
        if !a.is_inline() {
            assert_ne!(
                a.as_ptr(),
                b.as_ptr(),
                "a heap clone has its own allocation"
            );
        }
        drop(a);
        assert_eq!(b, s.as_str(), "a clone outlives its original");
    }
}

#[test]
fn equality_order_and_hash_follow_the_text() {
    let all = samples();
    for x in &all {
        let a = Str::from(x.as_str());
        assert_eq!(
            hash_of(&a),
            hash_of(x.as_str()),
            "Borrow<str> needs equal hashes"
        );
        assert!(a == *x.as_str() && a == x.as_str() && a == *x);
        assert!(*x.as_str() == a && x.as_str() == a && *x == a);
        for y in &all {
            let b = Str::from(y.as_str());
            assert_eq!(a == b, x == y);
            assert_eq!(a.cmp(&b), x.cmp(y), "{x:?} vs {y:?}");
            assert_eq!(a.partial_cmp(&b), x.partial_cmp(y));
            assert_eq!(a == *y.as_str(), x == y);
        }
    }
    let set: std::collections::HashSet<Str> = all.iter().map(|s| Str::from(s.as_str())).collect();
    for s in &all {
        assert!(set.contains(s.as_str()));
    }
}

#[test]
fn converting_to_a_string_keeps_the_text() {
    for s in samples() {
        let t = Str::from(s.as_str());
        let heap_ptr = (!t.is_inline()).then(|| t.as_ptr());
        let back = String::from(t);
        assert_eq!(back, s);
        if let Some(p) = heap_ptr {
            assert_eq!(back.as_ptr(), p, "a heap string hands over its allocation");
            assert_eq!(back.capacity(), back.len());
        }
    }
}
