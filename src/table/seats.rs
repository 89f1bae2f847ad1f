//! Who holds which seat at a table.

use rand::seq::SliceRandom;

use super::identity::PlayerKey;
use crate::games::Seat;

/// A seated player: known by their key, shown by their name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub key: PlayerKey,
    pub name: String,
}

/// The seats of one table, each free or held.
#[derive(Debug, Clone)]
pub struct Seats {
    seats: Vec<Option<Holder>>,
}

impl Seats {
    pub fn new(count: usize) -> Seats {
        Seats {
            seats: vec![None; count],
        }
    }

    pub fn count(&self) -> usize {
        self.seats.len()
    }

    pub fn exists(&self, seat: Seat) -> bool {
        usize::from(seat) < self.seats.len()
    }

    pub fn holder(&self, seat: Seat) -> Option<&Holder> {
        self.seats.get(usize::from(seat)).and_then(Option::as_ref)
    }

    /// The seats `key` holds, in order.
    pub fn held_by(&self, key: &PlayerKey) -> Vec<Seat> {
        self.iter()
            .filter(|(_, holder)| holder.is_some_and(|h| h.key == *key))
            .map(|(seat, _)| seat)
            .collect()
    }

    pub fn is_full(&self) -> bool {
        self.seats.iter().all(Option::is_some)
    }

    /// Puts `holder` in `seat` (the caller checked it is free).
    pub fn sit(&mut self, seat: Seat, holder: Holder) {
        if let Some(slot) = self.seats.get_mut(usize::from(seat)) {
            *slot = Some(holder);
        }
    }

    pub fn stand(&mut self, seat: Seat) {
        if let Some(slot) = self.seats.get_mut(usize::from(seat)) {
            *slot = None;
        }
    }

    /// Draws the seats by lot: the same players, in a random order.
    pub fn shuffle(&mut self) {
        self.seats.shuffle(&mut rand::rng());
    }

    pub fn iter(&self) -> impl Iterator<Item = (Seat, Option<&Holder>)> {
        self.seats
            .iter()
            .enumerate()
            .map(|(index, holder)| (seat_index(index), holder.as_ref()))
    }
}

/// Seat indices are small (a game has at most a handful of seats).
fn seat_index(index: usize) -> Seat {
    Seat::try_from(index).unwrap_or(Seat::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::identity::PlayerToken;

    fn holder(name: &str) -> Holder {
        Holder {
            key: PlayerToken::generate().key(),
            name: name.into(),
        }
    }

    #[test]
    fn sit_stand_and_find() {
        let mut seats = Seats::new(2);
        let anna = holder("Anna");
        seats.sit(1, anna.clone());
        assert_eq!(seats.held_by(&anna.key), vec![1]);
        assert!(!seats.is_full());
        seats.sit(0, holder("Bo"));
        assert!(seats.is_full());
        seats.stand(1);
        assert!(seats.holder(1).is_none());
        assert!(!seats.exists(2));
    }

    #[test]
    fn shuffle_keeps_the_players() {
        let mut seats = Seats::new(2);
        let (anna, bo) = (holder("Anna"), holder("Bo"));
        seats.sit(0, anna.clone());
        seats.sit(1, bo.clone());
        seats.shuffle();
        assert_eq!(seats.held_by(&anna.key).len(), 1);
        assert_eq!(seats.held_by(&bo.key).len(), 1);
    }
}
