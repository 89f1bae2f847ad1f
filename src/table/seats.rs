//! Who holds which seat at a table: a person (known by their key) or a bot.

use rand::seq::SliceRandom;

use crate::bots::BotChoice;
use crate::games::Seat;
use crate::identity::PlayerKey;

/// Whoever holds a seat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Holder {
    /// A person: known by their key, shown by their name.
    Person { key: PlayerKey, name: String },
    /// The computer: our bot at a strength, or a configured engine.
    Bot { strength: BotChoice },
}

impl Holder {
    /// The name shown at the table (`Computer (hard)` for a bot).
    pub fn name(&self) -> String {
        match self {
            Holder::Person { name, .. } => name.clone(),
            Holder::Bot { strength } => strength.player_name(),
        }
    }

    /// A person's key; `None` for a bot.
    pub fn key(&self) -> Option<PlayerKey> {
        match self {
            Holder::Person { key, .. } => Some(*key),
            Holder::Bot { .. } => None,
        }
    }

    /// A bot's strength; `None` for a person.
    pub fn bot(&self) -> Option<BotChoice> {
        match self {
            Holder::Person { .. } => None,
            Holder::Bot { strength } => Some(*strength),
        }
    }
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
            .filter(|(_, holder)| holder.is_some_and(|h| h.key() == Some(*key)))
            .map(|(seat, _)| seat)
            .collect()
    }

    /// The strength of the bot in `seat`, if a bot holds it.
    pub fn bot(&self, seat: Seat) -> Option<BotChoice> {
        self.holder(seat).and_then(Holder::bot)
    }

    /// How many seats people hold.
    pub fn people(&self) -> usize {
        self.seats.iter().flatten().filter(|h| h.key().is_some()).count()
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

    /// Swaps the players of each pair of seats (0 ↔ 1, 2 ↔ 3): in a two-player game the
    /// players change sides; in Bughouse each keeps their board and partner and plays the
    /// other colour.
    pub fn swap_pairs(&mut self) {
        for pair in self.seats.chunks_exact_mut(2) {
            pair.swap(0, 1);
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
    use crate::bots::Strength;
    use crate::identity::PlayerToken;

    fn holder(name: &str) -> Holder {
        Holder::Person {
            key: PlayerToken::generate().key(),
            name: name.into(),
        }
    }

    fn key(holder: &Holder) -> PlayerKey {
        holder.key().unwrap()
    }

    #[test]
    fn sit_stand_and_find() {
        let mut seats = Seats::new(2);
        let anna = holder("Anna");
        seats.sit(1, anna.clone());
        assert_eq!(seats.held_by(&key(&anna)), vec![1]);
        assert!(!seats.is_full());
        seats.sit(0, holder("Bo"));
        assert!(seats.is_full());
        seats.stand(1);
        assert!(seats.holder(1).is_none());
        assert!(!seats.exists(2));
        seats.sit(
            1,
            Holder::Bot {
                strength: Strength::Hard.into(),
            },
        );
        assert_eq!(seats.bot(1), Some(Strength::Hard.into()));
        assert_eq!(seats.people(), 1);
        assert_eq!(seats.holder(1).map(Holder::name).as_deref(), Some("Computer (hard)"));
    }

    #[test]
    fn swapping_pairs_keeps_bughouse_partners_together() {
        let names = ["A-white", "A-black", "B-white", "B-black"];
        let mut seats = Seats::new(4);
        for (seat, name) in names.iter().enumerate() {
            seats.sit(seat_index(seat), holder(name));
        }
        seats.swap_pairs();
        let now: Vec<String> = seats.iter().filter_map(|(_, h)| h.map(Holder::name)).collect();
        // The partners (seats 0 and 3) now hold seats 1 and 2: a team again, other colours.
        assert_eq!(now, ["A-black", "A-white", "B-black", "B-white"]);
    }

    #[test]
    fn shuffle_keeps_the_players() {
        let mut seats = Seats::new(2);
        let (anna, bo) = (holder("Anna"), holder("Bo"));
        seats.sit(0, anna.clone());
        seats.sit(1, bo.clone());
        seats.shuffle();
        assert_eq!(seats.held_by(&key(&anna)).len(), 1);
        assert_eq!(seats.held_by(&key(&bo)).len(), 1);
    }
}
