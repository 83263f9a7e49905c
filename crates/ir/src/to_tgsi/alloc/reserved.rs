//! The TEMP registers arrays hold: no value may take them, and a search
//! for a free register steps over them.

/// `ranges` (first, last) sorted and with overlapping ones merged, for
/// [`in_ranges`].
pub(super) fn merged_ranges(mut ranges: Vec<(u32, u32)>) -> Vec<(u32, u32)> {
    ranges.sort_unstable();
    let mut out: Vec<(u32, u32)> = Vec::with_capacity(ranges.len());
    for (first, last) in ranges {
        match out.last_mut() {
            Some(prev) if first <= prev.1.saturating_add(1) => prev.1 = prev.1.max(last),
            _ => out.push((first, last)),
        }
    }
    out
}

/// Indices from 0 up outside `ranges` (merged, sorted): a search for a
/// free register steps over a thousand arrays at once rather than trying
/// each of their registers.
pub(super) fn unreserved(ranges: &[(u32, u32)]) -> impl Iterator<Item = u32> + '_ {
    let mut next = Some(0u32);
    std::iter::from_fn(move || {
        let mut i = next?;
        let after = ranges.partition_point(|&(first, _)| first <= i);
        if let Some(&(_, last)) = after.checked_sub(1).and_then(|k| ranges.get(k)).filter(|r| r.1 >= i) {
            i = last.checked_add(1)?;
        }
        next = i.checked_add(1);
        Some(i)
    })
}

/// Whether `index` is in one of the sorted, disjoint `ranges`: a binary
/// search, since a shader may hold a thousand arrays and every register
/// the allocator considers is checked.
pub(super) fn in_ranges(ranges: &[(u32, u32)], index: u32) -> bool {
    let after = ranges.partition_point(|&(first, _)| first <= index);
    after > 0 && ranges[after - 1].1 >= index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_search_for_a_register_tries_none_an_array_holds() {
        let merged = merged_ranges(vec![(10, 12), (11, 20), (30, 30), (21, 22), (40, 43)]);
        let tried: Vec<u32> = unreserved(&merged).take_while(|&i| i < 50).collect();
        let scan: Vec<u32> = (0..50).filter(|&i| !in_ranges(&merged, i)).collect();
        assert_eq!(tried, scan);
        // A thousand arrays of four registers from TEMP[0]: the first
        // register tried is the first free one.
        let arrays = merged_ranges((0..1000).map(|k| (4 * k, 4 * k + 3)).collect());
        let tried: Vec<u32> = unreserved(&arrays).take_while(|&i| i < 4004).collect();
        assert_eq!(tried, [4000, 4001, 4002, 4003]);
        assert_eq!(unreserved(&[(0, u32::MAX)]).next(), None);
    }

    #[test]
    fn reserved_ranges_answer_as_a_scan_does() {
        let ranges = vec![(40, 43), (10, 12), (11, 20), (30, 30), (21, 22), (50, 49 + 4)];
        let merged = merged_ranges(ranges.clone());
        assert_eq!(merged, vec![(10, 22), (30, 30), (40, 43), (50, 53)]);
        for index in 0..60 {
            let scan = ranges.iter().any(|&(f, l)| (f..=l).contains(&index));
            assert_eq!(in_ranges(&merged, index), scan, "{index}");
        }
        assert!(!in_ranges(&[], 0));
    }
}
