//! Line patterns: what one more stone on an empty square would make along one line, and
//! the threat class that the four lines through a square make together.
//!
//! A square's neighbourhood on one line is the ten squares at distances 1 to 5 on either
//! side, packed two bits each into a [`LineKey`] (empty, own, opponent, off the board).
//! The pattern of a key is defined recursively, counting only fives that contain the
//! square itself (so five squares either side are enough, also to see an overline in
//! `exact5`): a five ([`Pattern::F5`]); two or more squares that would complete a five
//! (an open four, [`Pattern::F4`]) or exactly one (a four, [`Pattern::B4`]); otherwise the
//! best pattern that one more own stone in the window reaches, one level down (an open
//! three is one stone from an open four, a closed three one stone from a four, and so on
//! down to a lone stone). Broken shapes (`X.XX`) fall out of the same definition.
//!
//! The keys are few (2^20), so patterns are kept in one table per variant, filled lazily
//! (each entry once, from the entries one stone further on) and shared by every thread.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

use spelbord_games::gomoku::Variant;

/// Two bits per neighbour, ten neighbours: bits `2s..2s+2` hold slot `s` (see [`slot`]).
pub type LineKey = u32;

/// The neighbour states in a [`LineKey`].
pub const EMPTY: u32 = 0;
/// A stone of the side the key is read for.
pub const OWN: u32 = 1;
/// A stone of the other side.
pub const OPP: u32 = 2;
/// Beyond the edge of the board.
pub const WALL: u32 = 3;

/// How far a key looks along a line on each side.
pub const REACH: i32 = 5;

const SLOTS: usize = 10;
const LOW_BITS: u32 = 0x5_5555;
const HIGH_BITS: u32 = 0xA_AAAA;

/// The slot of the neighbour at `offset` (−5..=−1 and 1..=5) in a key.
pub fn slot(offset: i32) -> u32 {
    // The offsets are ±1..=5, so the result is 0..=9.
    if offset < 0 {
        (offset + REACH) as u32
    } else {
        (offset + REACH - 1) as u32
    }
}

/// The key read by the other side: own and opponent stones swap, walls stay.
pub fn swap_sides(key: LineKey) -> LineKey {
    ((key & LOW_BITS) << 1) | ((key & HIGH_BITS) >> 1)
}

/// What one own stone on the square makes along one line, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Pattern {
    /// No five through the square is possible on this line.
    Dead,
    /// A lone stone with room for a five only on one side.
    B1,
    /// A lone stone with room.
    F1,
    /// Two stones that can become a closed three at best.
    B2,
    /// Two stones that can become an open three.
    F2,
    /// A closed three: one stone from a four.
    B3,
    /// An open three: one stone from an open four (`.XXX.`, `.X.XX.`).
    F3,
    /// A four: one square completes a five.
    B4,
    /// An open four: two or more squares complete a five.
    F4,
    /// A winning five.
    F5,
}

impl Pattern {
    /// Every pattern, weakest first (a pattern's number indexes it).
    pub const ALL: [Pattern; 10] = [
        Pattern::Dead,
        Pattern::B1,
        Pattern::F1,
        Pattern::B2,
        Pattern::F2,
        Pattern::B3,
        Pattern::F3,
        Pattern::B4,
        Pattern::F4,
        Pattern::F5,
    ];

    /// One stone weaker: what a pattern one stone short of `self` is.
    fn demote(self) -> Pattern {
        match self {
            Pattern::F5 | Pattern::F4 => Pattern::F3,
            Pattern::B4 => Pattern::B3,
            Pattern::F3 => Pattern::F2,
            Pattern::B3 => Pattern::B2,
            Pattern::F2 => Pattern::F1,
            Pattern::B2 => Pattern::B1,
            Pattern::F1 | Pattern::B1 | Pattern::Dead => Pattern::Dead,
        }
    }
}

/// What one stone on a square makes over its four lines together: the threat it is,
/// strongest first (the names follow the usual A–L classes of gomoku engines).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum Threat {
    /// Nothing worth naming.
    None,
    /// An open two.
    Flex2,
    /// A closed three.
    Block3,
    /// Two open twos.
    Flex2x2,
    /// A closed three with another three or open two.
    Block3Plus,
    /// An open three.
    Flex3,
    /// An open three with a closed three or an open two.
    Flex3Plus,
    /// Two open threes (a double three).
    Flex3x2,
    /// A four.
    Block4,
    /// A four with a closed three or an open two.
    Block4Plus,
    /// A four with an open three: wins unless the answer to the four is itself a four.
    Block4Flex3,
    /// An open four, or two fours: two squares complete a five.
    Flex4,
    /// A five: the game is won.
    Five,
}

impl Threat {
    /// How many classes there are.
    pub const COUNT: usize = 13;

    /// Every class, weakest first.
    pub const ALL: [Threat; 13] = [
        Threat::None,
        Threat::Flex2,
        Threat::Block3,
        Threat::Flex2x2,
        Threat::Block3Plus,
        Threat::Flex3,
        Threat::Flex3Plus,
        Threat::Flex3x2,
        Threat::Block4,
        Threat::Block4Plus,
        Threat::Block4Flex3,
        Threat::Flex4,
        Threat::Five,
    ];

    /// The class of the four line patterns through a square.
    pub fn of(patterns: [Pattern; 4]) -> Threat {
        let mut count = [0u8; 10];
        for pattern in patterns {
            count[pattern as usize] += 1;
        }
        let n = |p: Pattern| count[p as usize];
        let (fives, flex4, block4, flex3, block3, flex2) = (
            n(Pattern::F5),
            n(Pattern::F4),
            n(Pattern::B4),
            n(Pattern::F3),
            n(Pattern::B3),
            n(Pattern::F2),
        );
        if fives > 0 {
            Threat::Five
        } else if flex4 > 0 || block4 >= 2 {
            Threat::Flex4
        } else if block4 > 0 && flex3 > 0 {
            Threat::Block4Flex3
        } else if block4 > 0 && (block3 > 0 || flex2 > 0) {
            Threat::Block4Plus
        } else if block4 > 0 {
            Threat::Block4
        } else if flex3 >= 2 {
            Threat::Flex3x2
        } else if flex3 > 0 && (block3 > 0 || flex2 > 0) {
            Threat::Flex3Plus
        } else if flex3 > 0 {
            Threat::Flex3
        } else if block3 > 0 && (block3 >= 2 || flex2 > 0) {
            Threat::Block3Plus
        } else if flex2 >= 2 {
            Threat::Flex2x2
        } else if block3 > 0 {
            Threat::Block3
        } else if flex2 > 0 {
            Threat::Flex2
        } else {
            Threat::None
        }
    }

    /// Whether the stone makes at least a four (the opponent must answer at once).
    pub fn is_four(self) -> bool {
        self >= Threat::Block4
    }
}

/// One lazily filled pattern table; entry `index` holds `pattern + 1`, or 0 while unknown.
///
/// In `free` a five through the square lies within four squares of it and an overline
/// wins too, so the neighbours at distance 5 do not matter: its table is indexed by the
/// inner 16 bits only (64 KB, which stays in the cache). `exact5` needs all 20 bits.
pub struct Table {
    variant: Variant,
    entries: Box<[AtomicU8]>,
}

static TABLES: [OnceLock<Table>; 2] = [OnceLock::new(), OnceLock::new()];

/// The pattern table of `variant`.
pub fn table(variant: Variant) -> &'static Table {
    let (index, len) = match variant {
        Variant::Free => (0, 1 << 16),
        Variant::Exact5 => (1, 1 << 20),
    };
    TABLES[index].get_or_init(|| Table {
        variant,
        entries: (0..len).map(|_| AtomicU8::new(0)).collect(),
    })
}

impl Table {
    /// The pattern of `key` (read for the side whose stones are [`OWN`]).
    #[inline]
    pub fn get(&self, key: LineKey) -> Pattern {
        let index = match self.variant {
            Variant::Free => (key >> 2) as usize & 0xFFFF,
            Variant::Exact5 => key as usize & 0xF_FFFF,
        };
        let entry = &self.entries[index];
        match entry.load(Ordering::Relaxed) {
            0 => {
                // The distance-5 neighbours read as empty in `free` (they cannot matter).
                let key = match self.variant {
                    Variant::Free => (index as u32) << 2,
                    Variant::Exact5 => index as u32,
                };
                let pattern = self.compute(key);
                // Racing threads compute the same value: relaxed stores are enough.
                entry.store(pattern as u8 + 1, Ordering::Relaxed);
                pattern
            }
            known => Pattern::ALL[usize::from(known - 1).min(9)],
        }
    }

    fn compute(&self, key: LineKey) -> Pattern {
        if self.five_through_centre(key) {
            return Pattern::F5;
        }
        // In `free` only the inner eight neighbours take part (see [`Table`]).
        let slots = match self.variant {
            Variant::Free => 1..SLOTS as u32 - 1,
            Variant::Exact5 => 0..SLOTS as u32,
        };
        let empties = slots.filter(|s| (key >> (2 * s)) & 3 == EMPTY);
        let completing = empties
            .clone()
            .filter(|s| self.five_through_centre(key | OWN << (2 * s)))
            .count();
        match completing {
            0 => empties
                .map(|s| self.get(key | OWN << (2 * s)).demote())
                .max()
                .unwrap_or(Pattern::Dead),
            1 => Pattern::B4,
            _ => Pattern::F4,
        }
    }

    /// Whether the own run through the centre (which holds an own stone) wins.
    fn five_through_centre(&self, key: LineKey) -> bool {
        let own = |offset: i32| (key >> (2 * slot(offset))) & 3 == OWN;
        let back = (1..=REACH).take_while(|&o| own(-o)).count();
        let front = (1..=REACH).take_while(|&o| own(o)).count();
        self.variant.wins_with(1 + back + front)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key of a line drawn as 11 characters with the square in the middle (`*`):
    /// `x` own, `o` opponent, `#` wall, `.` empty.
    fn key(line: &str) -> LineKey {
        assert_eq!(line.len(), 11, "{line}");
        assert_eq!(&line[5..6], "*", "{line}");
        line.chars()
            .enumerate()
            .filter(|(i, _)| *i != 5)
            .map(|(i, c)| {
                let state = match c {
                    'x' => OWN,
                    'o' => OPP,
                    '#' => WALL,
                    _ => EMPTY,
                };
                state << (2 * slot(i as i32 - 5))
            })
            .sum()
    }

    fn pattern(variant: Variant, key: LineKey) -> Pattern {
        table(variant).get(key)
    }

    fn free(line: &str) -> Pattern {
        pattern(Variant::Free, key(line))
    }

    fn exact(line: &str) -> Pattern {
        pattern(Variant::Exact5, key(line))
    }

    #[test]
    fn fives_and_overlines() {
        assert_eq!(free("...xx*xx..."), Pattern::F5);
        assert_eq!(free("..xxx*xx..."), Pattern::F5);
        assert_eq!(exact("...xx*xx..."), Pattern::F5);
        assert_eq!(exact("..xxx*xx..."), Pattern::Dead, "an overline, and no room else");
        assert_eq!(exact("oxxxx*....."), Pattern::F5, "exactly five");
        assert_eq!(exact("xxxxx*....."), Pattern::Dead, "six, and every longer run too");
    }

    #[test]
    fn fours() {
        assert_eq!(free("....x*xx..."), Pattern::F4);
        assert_eq!(free("...ox*xx..."), Pattern::B4);
        assert_eq!(free("....x*x.x.."), Pattern::B4, "broken four");
        assert_eq!(free("..x.x*x.x.."), Pattern::F4, "two fours on one line");
        assert_eq!(free("###xx*x...."), Pattern::B4, "against the edge");
        // exact5: the square next to a stone beyond the five would make six.
        assert_eq!(exact("...xx*x.x.."), Pattern::B4);
        assert_eq!(free("...xx*x.x.."), Pattern::F4);
    }

    #[test]
    fn threes_and_less() {
        assert_eq!(free("....x*x...."), Pattern::F3);
        assert_eq!(free("....x*.x..."), Pattern::F3, "broken three");
        assert_eq!(free("...ox*x...."), Pattern::B3);
        assert_eq!(free("..o.x*x.o.."), Pattern::B3, "no room for an open four");
        assert_eq!(free(".....*x...."), Pattern::F2);
        assert_eq!(free(".....*....."), Pattern::F1);
        assert_eq!(free("....o*...o."), Pattern::Dead, "only four squares between");
        assert_eq!(free("....o*....#"), Pattern::B1);
    }

    #[test]
    fn swapping_sides_keeps_walls() {
        let k = key("#ox..*..xo#");
        assert_eq!(swap_sides(k), key("#xo..*..ox#"));
        assert_eq!(swap_sides(swap_sides(k)), k);
    }

    #[test]
    fn threat_classes() {
        use Pattern::*;
        assert_eq!(Threat::of([F5, Dead, Dead, Dead]), Threat::Five);
        assert_eq!(Threat::of([B4, B4, Dead, Dead]), Threat::Flex4);
        assert_eq!(Threat::of([B4, F3, Dead, Dead]), Threat::Block4Flex3);
        assert_eq!(Threat::of([F3, F3, F1, Dead]), Threat::Flex3x2);
        assert_eq!(Threat::of([F2, B1, F1, Dead]), Threat::Flex2);
        assert!(Threat::Block4.is_four() && !Threat::Flex3x2.is_four());
    }
}
