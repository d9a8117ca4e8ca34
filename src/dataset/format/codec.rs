//! One record's bytes: the 40-byte position, the search part of version 2 and the teacher's
//! label of version 3, encoded and decoded (every decode checked).

use super::*;

/// Encodes `p` into one record.
pub fn encode(p: &Position) -> [u8; RECORD_SIZE] {
    let mut r = [0u8; RECORD_SIZE];
    for (i, &c) in p.cells.iter().enumerate() {
        r[i / 4] |= (c & 3) << (2 * (i % 4));
    }
    r[21] = p.to_move;
    r[22] = p.played;
    r[23] = p.ko;
    r[24..26].copy_from_slice(&p.move_number.to_le_bytes());
    r[26..30].copy_from_slice(&p.last_moves);
    r[30] = p.winner;
    r[31] = p.black_rank as u8;
    r[32] = p.white_rank as u8;
    r[36..40].copy_from_slice(&p.game.to_le_bytes());
    r
}

/// Encodes `p` into one record of its version ([`version_of`]): 40 bytes, 240 with its
/// search data, 832 with a teacher's label.
pub fn encode_any(p: &Position) -> Vec<u8> {
    let mut r = encode(p).to_vec();
    match (&p.search, &p.teacher) {
        (Some(t), None) => r.extend_from_slice(&encode_search(t)),
        (search, Some(label)) => {
            match search {
                Some(t) => r.extend_from_slice(&encode_search(t)),
                None => r.resize(SEARCH_RECORD_SIZE, 0),
            }
            r.extend_from_slice(&encode_teacher(label, search.is_some()));
        }
        (None, None) => {}
    }
    r
}

/// Bytes of the teacher part of a version-3 record.
pub(super) const TEACHER_PART: usize = TEACHER_RECORD_SIZE - SEARCH_RECORD_SIZE;

pub(super) const FLAG_SEARCH: u8 = 1;

pub(super) const FLAG_PER_MOVE: u8 = 2;

/// The 592 bytes a version-3 record appends for `t`; `search` says whether the search part
/// before them holds data.
pub fn encode_teacher(t: &TeacherLabel, search: bool) -> [u8; TEACHER_PART] {
    let mut r = [0u8; TEACHER_PART];
    for (i, v) in t.policy.iter().enumerate() {
        r[2 * i..2 * i + 2].copy_from_slice(&v.to_le_bytes());
    }
    r[164..168].copy_from_slice(&t.winrate.to_le_bytes());
    r[168..172].copy_from_slice(&t.score_lead.to_le_bytes());
    r[172..176].copy_from_slice(&t.visits.to_le_bytes());
    for (i, &o) in t.ownership.iter().enumerate() {
        r[176 + i] = o as u8;
    }
    let mut flags = if search { FLAG_SEARCH } else { 0 };
    if let Some(m) = &t.moves {
        flags |= FLAG_PER_MOVE;
        for (i, (w, v)) in m.winrate.iter().zip(&m.score_lead).enumerate() {
            r[260 + 2 * i..262 + 2 * i].copy_from_slice(&w.to_le_bytes());
            r[424 + 2 * i..426 + 2 * i].copy_from_slice(&v.to_le_bytes());
        }
    }
    r[257] = flags;
    r
}

/// Decodes the teacher part of a version-3 record (the bytes after the first 240), with
/// whether the search part holds data.
pub(super) fn decode_teacher(r: &[u8]) -> Result<(TeacherLabel, bool), RecordError> {
    let u16_at = |i: usize| u16::from_le_bytes([r[i], r[i + 1]]);
    let f32_at = |i: usize| f32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
    let mut policy = [0u16; VISIT_SLOTS];
    for (i, p) in policy.iter_mut().enumerate() {
        *p = u16_at(2 * i);
    }
    let winrate = f32_at(164);
    if !(0.0..=1.0).contains(&winrate) {
        return Err(RecordError::Value(winrate));
    }
    let score_lead = f32_at(168);
    if !score_lead.is_finite() {
        return Err(RecordError::Score(score_lead));
    }
    let visits = u32::from_le_bytes([r[172], r[173], r[174], r[175]]);
    let mut ownership = [0i8; NN];
    for (i, o) in ownership.iter_mut().enumerate() {
        *o = r[176 + i] as i8;
        if *o == i8::MIN {
            return Err(RecordError::Owner(i));
        }
    }
    let flags = r[257];
    if flags & !(FLAG_SEARCH | FLAG_PER_MOVE) != 0 || r[258] != 0 || r[259] != 0 {
        return Err(RecordError::Flags(flags));
    }
    let moves = if flags & FLAG_PER_MOVE != 0 {
        let mut m = MoveValues {
            winrate: [NO_SHARE; VISIT_SLOTS],
            score_lead: [NO_SCORE; VISIT_SLOTS],
        };
        for i in 0..VISIT_SLOTS {
            m.winrate[i] = u16_at(260 + 2 * i);
            m.score_lead[i] = u16_at(424 + 2 * i) as i16;
        }
        Some(Box::new(m))
    } else {
        None
    };
    let label = TeacherLabel {
        policy,
        winrate,
        score_lead,
        visits,
        ownership,
        moves,
    };
    Ok((label, flags & FLAG_SEARCH != 0))
}

/// The 200 bytes a version-2 record appends for `t`.
pub fn encode_search(t: &SearchTarget) -> [u8; SEARCH_RECORD_SIZE - RECORD_SIZE] {
    let mut r = [0u8; SEARCH_RECORD_SIZE - RECORD_SIZE];
    for (i, v) in t.visits.iter().enumerate() {
        r[2 * i..2 * i + 2].copy_from_slice(&v.to_le_bytes());
    }
    r[164..168].copy_from_slice(&t.value.to_le_bytes());
    r[168..172].copy_from_slice(&t.simulations.to_le_bytes());
    if let Some(own) = &t.ownership {
        for (i, &c) in own.iter().enumerate() {
            r[172 + i / 4] |= (c & 3) << (2 * (i % 4));
        }
        r[193] = 1;
    }
    r[196..200].copy_from_slice(&t.score.to_le_bytes());
    r
}

/// Decodes the search part of a version-2 record (the bytes after the first 40).
pub(super) fn decode_search(r: &[u8]) -> Result<SearchTarget, RecordError> {
    let mut visits = [0u16; VISIT_SLOTS];
    for (i, v) in visits.iter_mut().enumerate() {
        *v = u16::from_le_bytes([r[2 * i], r[2 * i + 1]]);
    }
    let f32_at = |i: usize| f32::from_le_bytes([r[i], r[i + 1], r[i + 2], r[i + 3]]);
    let value = f32_at(164);
    if !(value.is_nan() || (0.0..=1.0).contains(&value)) {
        return Err(RecordError::Value(value));
    }
    let simulations = u32::from_le_bytes([r[168], r[169], r[170], r[171]]);
    if r[193] > 1 || r[194] != 0 || r[195] != 0 {
        return Err(RecordError::Flags(r[193]));
    }
    let ownership = if r[193] == 1 {
        let mut own = [0u8; NN];
        for (i, o) in own.iter_mut().enumerate() {
            *o = (r[172 + i / 4] >> (2 * (i % 4))) & 3;
            if *o == 3 {
                return Err(RecordError::Owner(i));
            }
        }
        Some(own)
    } else {
        None
    };
    let score = f32_at(196);
    if score.is_infinite() {
        return Err(RecordError::Score(score));
    }
    Ok(SearchTarget {
        visits,
        value,
        simulations,
        ownership,
        score,
    })
}

/// Why one record does not decode ([`decode`]).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RecordError {
    #[error(
        "record has {0} bytes, expected {RECORD_SIZE}, {SEARCH_RECORD_SIZE} or {TEACHER_RECORD_SIZE}"
    )]
    Size(usize),
    #[error("root value {0} (expected 0..=1 or NaN)")]
    Value(f32),
    #[error("flags byte {0} or its reserved neighbours are not valid")]
    Flags(u8),
    #[error("owner of point {0} is 3 (expected 0, 1 or 2)")]
    Owner(usize),
    #[error("score {0} is not finite")]
    Score(f32),
    #[error("padding bits of the last cell byte are set")]
    Padding,
    #[error("to_move {0} (expected 1 or 2)")]
    ToMove(u8),
    #[error("played {0} (expected a point or 81 = pass)")]
    Played(u8),
    #[error("played point {0} is occupied")]
    PlayedOccupied(u8),
    #[error("ko {0} (expected a point or 255 = none)")]
    Ko(u8),
    #[error("last_moves {0:?} (each a point, 81 = pass or 255 = none)")]
    LastMoves([u8; 4]),
    #[error("winner {0} (expected 0, 1 or 2)")]
    Winner(u8),
    #[error("stones: {0}")]
    Stones(#[from] CellsError),
}

/// Decodes one record (any version, told by its length), checking every field's range
/// and that the stones form a position (every chain has a liberty), so [`Position::board`]
/// cannot fail on what it returns.
pub fn decode(r: &[u8]) -> Result<Position, RecordError> {
    let (search, teacher) = match r.len() {
        RECORD_SIZE => (None, None),
        SEARCH_RECORD_SIZE => (Some(Box::new(decode_search(&r[RECORD_SIZE..])?)), None),
        TEACHER_RECORD_SIZE => {
            let (label, has_search) = decode_teacher(&r[SEARCH_RECORD_SIZE..])?;
            let search = if has_search {
                Some(Box::new(decode_search(
                    &r[RECORD_SIZE..SEARCH_RECORD_SIZE],
                )?))
            } else {
                None
            };
            (search, Some(Box::new(label)))
        }
        n => return Err(RecordError::Size(n)),
    };
    let mut cells = [0u8; NN];
    for (i, cell) in cells.iter_mut().enumerate() {
        let v = (r[i / 4] >> (2 * (i % 4))) & 3;
        if v == 3 {
            return Err(CellsError::BadCell { index: i, value: v }.into());
        }
        *cell = v;
    }
    if r[20] >> 2 != 0 {
        return Err(RecordError::Padding);
    }
    let p = Position {
        cells,
        to_move: r[21],
        played: r[22],
        ko: r[23],
        move_number: u16::from_le_bytes([r[24], r[25]]),
        last_moves: [r[26], r[27], r[28], r[29]],
        winner: r[30],
        black_rank: r[31] as i8,
        white_rank: r[32] as i8,
        game: u32::from_le_bytes([r[36], r[37], r[38], r[39]]),
        search,
        teacher,
    };
    if !(1..=2).contains(&p.to_move) {
        return Err(RecordError::ToMove(p.to_move));
    }
    if p.played as usize > PASS_INDEX {
        return Err(RecordError::Played(p.played));
    }
    if (p.played as usize) < NN && p.cells[p.played as usize] != 0 {
        return Err(RecordError::PlayedOccupied(p.played));
    }
    if p.ko != NO_POINT && p.ko as usize >= NN {
        return Err(RecordError::Ko(p.ko));
    }
    if p.last_moves
        .iter()
        .any(|&m| m != NO_POINT && m as usize > PASS_INDEX)
    {
        return Err(RecordError::LastMoves(p.last_moves));
    }
    if p.winner > 2 {
        return Err(RecordError::Winner(p.winner));
    }
    Board::from_cells(&p.cells, [0, 0])?;
    Ok(p)
}
