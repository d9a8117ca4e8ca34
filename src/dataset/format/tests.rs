use super::*;

fn sample(i: u32) -> Position {
    let mut cells = [0u8; NN];
    // Lone stones on every fourth point: a legal position (decode checks liberties).
    for (k, c) in cells.iter_mut().enumerate() {
        if k as u32 % 4 == i % 4 {
            *c = 1 + ((k as u32 + i) % 2) as u8;
        }
    }
    cells[40] = 0;
    Position {
        cells,
        to_move: 1 + (i % 2) as u8,
        played: 40,
        move_number: i as u16,
        last_moves: [3, 81, NO_POINT, NO_POINT],
        ko: if i.is_multiple_of(3) { 12 } else { NO_POINT },
        winner: (i % 3) as u8,
        black_rank: -5,
        white_rank: i8::MIN,
        game: i * 1000,
        search: None,
        teacher: None,
    }
}

fn with_search(i: u32) -> Position {
    let mut p = sample(i);
    let mut visits = [0u16; VISIT_SLOTS];
    visits[40] = 300 + i as u16;
    visits[81] = 7;
    let mut own = [0u8; NN];
    for (k, o) in own.iter_mut().enumerate() {
        *o = (k % 3) as u8;
    }
    p.search = Some(Box::new(SearchTarget {
        visits,
        value: 0.25,
        simulations: 400,
        ownership: i.is_multiple_of(2).then_some(own),
        score: if i.is_multiple_of(2) { -3.5 } else { f32::NAN },
    }));
    p
}

#[test]
fn version_two_records_round_trip_and_refuse_bad_search_fields() {
    let dir = temp_dir("v2");
    let mut w = SplitWriter::create_version(&dir, Split::Train, VERSION_SEARCH).unwrap();
    let written: Vec<Position> = (0..5).map(with_search).collect();
    for p in &written {
        w.push(p).unwrap();
    }
    // A record without search data does not go into a version-2 split.
    assert!(w.push(&sample(9)).is_err());
    let h = w.finish(5).unwrap();
    assert_eq!(
        (h.version, h.record_size()),
        (VERSION_SEARCH, SEARCH_RECORD_SIZE)
    );
    let back = read_split(&dir, Split::Train).unwrap();
    assert_eq!(back.len(), 5);
    for (a, b) in written.iter().zip(&back) {
        let (ta, tb) = (a.search.as_ref().unwrap(), b.search.as_ref().unwrap());
        assert_eq!(
            (ta.visits, ta.simulations, ta.ownership),
            (tb.visits, tb.simulations, tb.ownership)
        );
        assert_eq!(ta.value, tb.value);
        assert_eq!(ta.score.is_nan(), tb.score.is_nan());
        assert_eq!(a.cells, b.cells);
    }
    let mapped = MappedSplit::open(&dir, Split::Train).unwrap();
    assert_eq!(mapped.get(2).unwrap().search, written[2].search); // even: a score, so no NaN
    // Range checks on the appended bytes.
    let good = encode_any(&written[0]);
    let mut bad = good.clone();
    bad[RECORD_SIZE + 164..RECORD_SIZE + 168].copy_from_slice(&1.5f32.to_le_bytes());
    assert!(matches!(decode(&bad), Err(RecordError::Value(_))));
    let mut bad = good.clone();
    bad[RECORD_SIZE + 172] = 0xff;
    assert!(matches!(decode(&bad), Err(RecordError::Owner(_))));
    let mut bad = good;
    bad[RECORD_SIZE + 193] = 2;
    assert!(matches!(decode(&bad), Err(RecordError::Flags(2))));
    assert!(matches!(decode(&[0u8; 100]), Err(RecordError::Size(100))));
    let _ = std::fs::remove_dir_all(&dir);
}

fn labelled(i: u32, search: bool, per_move: bool) -> Position {
    let mut p = if search { with_search(i) } else { sample(i) };
    let mut policy = [0u16; VISIT_SLOTS];
    for (k, v) in policy.iter_mut().enumerate() {
        *v = if k % 7 == 0 {
            NO_SHARE
        } else {
            (k as u16) * 300 + i as u16
        };
    }
    let mut ownership = [0i8; NN];
    for (k, o) in ownership.iter_mut().enumerate() {
        *o = (k as i32 * 3 - 120) as i8;
    }
    let moves = per_move.then(|| {
        let mut m = MoveValues {
            winrate: [NO_SHARE; VISIT_SLOTS],
            score_lead: [NO_SCORE; VISIT_SLOTS],
        };
        for k in (0..VISIT_SLOTS).step_by(3) {
            m.winrate[k] = (k as u16) * 700;
            m.score_lead[k] = k as i16 * 37 - 1500;
        }
        Box::new(m)
    });
    p.teacher = Some(Box::new(TeacherLabel {
        policy,
        winrate: 0.25 + i as f32 / 100.0,
        score_lead: -3.5 * i as f32,
        visits: 1 + i,
        ownership,
        moves,
    }));
    p
}

/// Version 3 at its documented offsets: labels with and without search data and
/// per-move values round-trip through a split file, the bytes lie where the table says,
/// a label goes only into a version-3 split, and bad label bytes are refused.
#[test]
fn version_three_records_round_trip_at_their_documented_offsets() {
    let dir = temp_dir("v3");
    let mut w = SplitWriter::create_version(&dir, Split::Test, VERSION_TEACHER).unwrap();
    let written: Vec<Position> = (0..4).map(|i| labelled(i, i % 2 == 1, i >= 2)).collect();
    for p in &written {
        w.push(p).unwrap();
    }
    assert!(w.push(&sample(9)).is_err());
    assert!(w.push(&with_search(9)).is_err());
    let h = w.finish(4).unwrap();
    assert_eq!(
        (h.version, h.record_size()),
        (VERSION_TEACHER, TEACHER_RECORD_SIZE)
    );
    // Compared as bytes: a search part's NaN score is not equal to itself.
    let back = read_split(&dir, Split::Test).unwrap();
    let bytes = |v: &[Position]| v.iter().map(encode_any).collect::<Vec<_>>();
    assert_eq!(bytes(&back), bytes(&written));
    assert_eq!(back[2], written[2], "no search part: equal as values too");
    let mut v1 = SplitWriter::create(&dir, Split::Train).unwrap();
    assert!(v1.push(&written[0]).is_err());
    let r = encode_any(&written[3]);
    assert_eq!(r.len(), TEACHER_RECORD_SIZE);
    let t = written[3].teacher.as_ref().unwrap();
    let u16_at = |i: usize| u16::from_le_bytes([r[i], r[i + 1]]);
    let f32_at = |i: usize| f32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
    assert_eq!(u16_at(240 + 2 * 5), t.policy[5]);
    assert_eq!(u16_at(402), t.policy[81]);
    assert_eq!((f32_at(404), f32_at(408)), (t.winrate, t.score_lead));
    assert_eq!(
        u32::from_le_bytes([r[412], r[413], r[414], r[415]]),
        t.visits
    );
    assert_eq!(r[416 + 80] as i8, t.ownership[80]);
    assert_eq!(r[497], 3, "search part and per-move values present");
    let m = t.moves.as_ref().unwrap();
    assert_eq!(u16_at(500 + 2 * 3), m.winrate[3]);
    assert_eq!(u16_at(664 + 2 * 81) as i16, m.score_lead[81]);
    assert_eq!(
        &r[RECORD_SIZE..SEARCH_RECORD_SIZE],
        &encode_search(written[3].search.as_ref().unwrap())[..]
    );
    // Without search data the search part is zero and its flag clear.
    let r0 = encode_any(&written[0]);
    assert!(r0[RECORD_SIZE..SEARCH_RECORD_SIZE].iter().all(|&b| b == 0));
    assert_eq!(r0[497], 0);
    for (at, value) in [(404, 1.5f32), (408, f32::INFINITY)] {
        let mut bad = r.clone();
        bad[at..at + 4].copy_from_slice(&value.to_le_bytes());
        assert!(decode(&bad).is_err(), "{at}");
    }
    let mut bad = r.clone();
    bad[416] = 0x80;
    assert!(matches!(decode(&bad), Err(RecordError::Owner(0))));
    let mut bad = r;
    bad[497] = 4;
    assert!(matches!(decode(&bad), Err(RecordError::Flags(4))));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The version-2 bytes where the module's layout table puts them, field by field, in
/// both directions: an encoded record read at the documented offsets, and a record
/// written at the documented offsets decoded.
#[test]
fn version_two_fields_lie_at_their_documented_offsets() {
    // The table: 40..204 visits, 204..208 value, 208..212 simulations, 212..233 owners,
    // 233 flags, 234..236 reserved, 236..240 score.
    const VISITS: usize = 40;
    const VALUE: usize = 204;
    const SIMULATIONS: usize = 208;
    const OWNERS: usize = 212;
    const FLAGS: usize = 233;
    const SCORE: usize = 236;
    let p = with_search(0);
    let t = p.search.as_ref().unwrap();
    let r = encode_any(&p);
    assert_eq!(r.len(), SEARCH_RECORD_SIZE);
    assert_eq!(r[..RECORD_SIZE], encode(&p));
    let u16_at = |i: usize| u16::from_le_bytes([r[i], r[i + 1]]);
    let f32_at = |i: usize| f32::from_le_bytes(r[i..i + 4].try_into().unwrap());
    for (k, &v) in t.visits.iter().enumerate() {
        assert_eq!(u16_at(VISITS + 2 * k), v, "visits of slot {k}");
    }
    assert_eq!(VISITS + 2 * VISIT_SLOTS, VALUE);
    assert_eq!(f32_at(VALUE), t.value);
    assert_eq!(
        u32::from_le_bytes(r[SIMULATIONS..SIMULATIONS + 4].try_into().unwrap()),
        t.simulations
    );
    let own = t.ownership.unwrap();
    for (i, &o) in own.iter().enumerate() {
        assert_eq!(
            (r[OWNERS + i / 4] >> (2 * (i % 4))) & 3,
            o,
            "owner of point {i}"
        );
    }
    assert_eq!(OWNERS + NN.div_ceil(4), FLAGS);
    assert_eq!(r[FLAGS], 1, "ownership known");
    assert_eq!(r[FLAGS + 1..SCORE], [0, 0], "reserved");
    assert_eq!(f32_at(SCORE), t.score);
    assert_eq!(SCORE + 4, SEARCH_RECORD_SIZE);

    // A record written from the table alone decodes to the fields put there.
    let mut w = encode(&sample(1)).to_vec();
    w.resize(SEARCH_RECORD_SIZE, 0);
    w[VISITS + 2 * 7..VISITS + 2 * 7 + 2].copy_from_slice(&513u16.to_le_bytes());
    w[VISITS + 2 * 81..VISITS + 2 * 81 + 2].copy_from_slice(&9u16.to_le_bytes());
    w[VALUE..VALUE + 4].copy_from_slice(&0.625f32.to_le_bytes());
    w[SIMULATIONS..SIMULATIONS + 4].copy_from_slice(&70_000u32.to_le_bytes());
    // Point 0 black, point 5 white, point 80 black; the rest nobody's.
    w[OWNERS] = 1;
    w[OWNERS + 1] = 2 << 2;
    w[OWNERS + 20] = 1;
    w[FLAGS] = 1;
    w[SCORE..SCORE + 4].copy_from_slice(&(-12.5f32).to_le_bytes());
    let back = decode(&w).unwrap();
    let s = back.search.unwrap();
    let mut visits = [0u16; VISIT_SLOTS];
    visits[7] = 513;
    visits[81] = 9;
    assert_eq!(s.visits, visits);
    assert_eq!(s.value, 0.625);
    assert_eq!(s.simulations, 70_000);
    let mut owners = [0u8; NN];
    owners[0] = 1;
    owners[5] = 2;
    owners[80] = 1;
    assert_eq!(s.ownership, Some(owners));
    assert_eq!(s.score, -12.5);
    // Flags 0: the owner bytes are not read.
    w[FLAGS] = 0;
    assert_eq!(decode(&w).unwrap().search.unwrap().ownership, None);
}

#[test]
fn visits_above_u16_are_scaled_keeping_every_visited_move() {
    let mut counts = [0u32; VISIT_SLOTS];
    counts[0] = 200_000;
    counts[1] = 1;
    counts[2] = 100_000;
    let v = SearchTarget::visits_from(&counts);
    assert_eq!((v[0], v[1], v[2], v[3]), (65_535, 1, 32_768, 0));
}

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("akushu-fmt-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_stone_without_liberties_is_a_typed_error() {
    let mut p = sample(1);
    p.cells = [0; NN];
    p.cells[0] = 1;
    p.cells[1] = 2;
    p.cells[9] = 2;
    assert_eq!(
        decode(&encode(&p)),
        Err(RecordError::Stones(CellsError::NoLiberties(
            crate::rules::Point::new(0)
        )))
    );
}

#[test]
fn record_round_trip() {
    for i in 0..50 {
        let p = sample(i);
        assert_eq!(decode(&encode(&p)).unwrap(), p);
    }
}

#[test]
fn write_read_stream_and_map() {
    let dir = temp_dir("rw");
    let ps: Vec<Position> = (0..1000).map(sample).collect();
    let mut w = SplitWriter::create(&dir, Split::Validation).unwrap();
    for p in &ps {
        w.push(p).unwrap();
    }
    let h = w.finish(7).unwrap();
    assert_eq!((h.count, h.games), (1000, 7));
    assert_eq!(read_split(&dir, Split::Validation).unwrap(), ps);
    let m = MappedSplit::open(&dir, Split::Validation).unwrap();
    assert_eq!(m.len(), 1000);
    assert_eq!(m.get(999).unwrap(), ps[999]);
    assert!(m.get(1000).is_err());
    // A missing split is an I/O error naming the file.
    let e = read_split(&dir, Split::Test).unwrap_err().to_string();
    assert!(e.contains("test.akd"), "{e}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn corruption_and_truncation_are_detected() {
    let dir = temp_dir("bad");
    let mut w = SplitWriter::create(&dir, Split::Train).unwrap();
    for i in 0..10 {
        w.push(&sample(i)).unwrap();
    }
    w.finish(1).unwrap();
    let path = split_path(&dir, Split::Train);
    let good = std::fs::read(&path).unwrap();

    let mut flipped = good.clone();
    flipped[HEADER_SIZE + 5 * RECORD_SIZE + 37] ^= 1; // game id byte: still decodable
    std::fs::write(&path, &flipped).unwrap();
    assert!(matches!(
        read_split(&dir, Split::Train),
        Err(DatasetError::Checksum { .. })
    ));
    assert!(matches!(
        MappedSplit::open(&dir, Split::Train),
        Err(DatasetError::Checksum { .. })
    ));

    std::fs::write(&path, &good[..good.len() - 3]).unwrap();
    assert!(matches!(
        read_split(&dir, Split::Train),
        Err(DatasetError::Truncated { .. })
    ));

    let mut longer = good.clone();
    longer.extend_from_slice(b"extra");
    std::fs::write(&path, &longer).unwrap();
    let e = read_split(&dir, Split::Train).unwrap_err();
    assert!(matches!(e, DatasetError::ExtraBytes { .. }), "{e}");
    assert!(e.to_string().contains("5 extra"), "{e}");

    let mut magic = good.clone();
    magic[0] = b'X';
    std::fs::write(&path, &magic).unwrap();
    assert!(matches!(
        read_split(&dir, Split::Train),
        Err(DatasetError::BadMagic { .. })
    ));

    let mut version = good.clone();
    version[8] = 9;
    std::fs::write(&path, &version).unwrap();
    assert!(matches!(
        read_split(&dir, Split::Train),
        Err(DatasetError::Version { found: 9, .. })
    ));

    // A file renamed to another split's name is refused.
    std::fs::write(split_path(&dir, Split::Test), &good).unwrap();
    assert!(matches!(
        read_split(&dir, Split::Test),
        Err(DatasetError::WrongSplit { .. })
    ));
    std::fs::remove_dir_all(dir).unwrap();
}
