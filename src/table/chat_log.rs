//! A table's recent chat, kept in memory for newcomers: the last [`CHAT_HISTORY`] lines
//! of table chat (in every snapshot) and of each team's chat (in the `welcome` of the
//! people who were on that team when it was said).
//!
//! Every line is stored in Postgres before it is announced (`store::chat`); this log is
//! the same tail, loaded from there when a table is rebuilt. Team lines remember their
//! audience, the team's people when they were said, because teams may be drawn anew for
//! another game: a later partner or opponent never reads them.

use std::collections::VecDeque;

use crate::games::Seat;
use crate::protocol::ChatView;
use crate::store::chat::ChatRow;

use crate::identity::PlayerKey;

/// How many lines of each channel (the table, or one team) a newcomer is sent.
pub const CHAT_HISTORY: usize = crate::store::chat::CHAT_KEPT;

/// One team line and who may read it.
#[derive(Debug, Clone)]
struct TeamLine {
    team: u8,
    line: ChatView,
    /// The keys of the team's people when it was said.
    audience: Vec<PlayerKey>,
}

/// The recent chat of one table; see the module doc.
#[derive(Debug, Default)]
pub struct ChatLog {
    public: VecDeque<ChatView>,
    /// Every team's recent lines in the order they were said, at most [`CHAT_HISTORY`] a team.
    teams: VecDeque<TeamLine>,
}

impl ChatLog {
    /// The log as stored: rows of any channels, oldest first.
    pub fn from_rows(rows: impl IntoIterator<Item = ChatRow>) -> ChatLog {
        let mut log = ChatLog::default();
        let mut rows: Vec<ChatRow> = rows.into_iter().collect();
        rows.sort_by_key(|row| row.id);
        for row in rows {
            // -1: a person waiting in a rotating table's queue.
            let seat = match row.seat {
                -1 => None,
                seat => match Seat::try_from(seat) {
                    Ok(seat) => Some(seat),
                    Err(_) => continue,
                },
            };
            let line = ChatView {
                id: row.id,
                seat,
                name: row.name,
                text: row.text,
            };
            match row.team.map(u8::try_from) {
                None => log.say(line),
                Some(Ok(team)) => {
                    let audience = row
                        .audience
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|key| PlayerKey::from_bytes(key))
                        .collect();
                    log.say_to_team(team, line, audience);
                }
                Some(Err(_)) => {}
            }
        }
        log
    }

    /// A line to the whole table.
    pub fn say(&mut self, line: ChatView) {
        self.public.push_back(line);
        if self.public.len() > CHAT_HISTORY {
            self.public.pop_front();
        }
    }

    /// A line to `team`, readable by the people in `audience`.
    pub fn say_to_team(&mut self, team: u8, line: ChatView, audience: Vec<PlayerKey>) {
        self.teams.push_back(TeamLine { team, line, audience });
        if self.teams.iter().filter(|said| said.team == team).count() > CHAT_HISTORY
            && let Some(oldest) = self.teams.iter().position(|said| said.team == team)
        {
            self.teams.remove(oldest);
        }
    }

    /// The table chat, oldest first.
    pub fn public(&self) -> Vec<ChatView> {
        self.public.iter().cloned().collect()
    }

    /// The team lines `key` may read, oldest first (at most [`CHAT_HISTORY`]).
    pub fn team_lines_for(&self, key: &PlayerKey) -> Vec<ChatView> {
        let readable: Vec<&TeamLine> = self.teams.iter().filter(|said| said.audience.contains(key)).collect();
        let skip = readable.len().saturating_sub(CHAT_HISTORY);
        readable.into_iter().skip(skip).map(|said| said.line.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::identity::PlayerToken;

    fn line(seat: Seat, text: &str) -> ChatView {
        ChatView {
            id: 0,
            seat: Some(seat),
            name: format!("P{seat}"),
            text: text.to_owned(),
        }
    }

    #[test]
    fn keeps_the_last_lines_of_each_channel() {
        let mut log = ChatLog::default();
        let (anna, bo) = (PlayerToken::generate().key(), PlayerToken::generate().key());
        for n in 0..CHAT_HISTORY + 5 {
            log.say(line(0, &format!("all {n}")));
            log.say_to_team(0, line(0, &format!("team 0 {n}")), vec![anna]);
        }
        log.say_to_team(1, line(1, "team 1"), vec![bo]);
        let public = log.public();
        assert_eq!(public.len(), CHAT_HISTORY);
        assert_eq!(public[0].text, "all 5");
        let anna_reads = log.team_lines_for(&anna);
        assert_eq!(anna_reads.len(), CHAT_HISTORY);
        assert_eq!(anna_reads[0].text, "team 0 5");
        assert_eq!(
            log.team_lines_for(&bo),
            vec![line(1, "team 1")],
            "one team's chatter never pushes out the other's"
        );
    }

    #[test]
    fn rows_come_back_in_order_with_their_audience() {
        let anna = PlayerToken::generate().key();
        let row = |id: i64, team: Option<i16>, text: &str| ChatRow {
            id,
            seat: 2,
            name: "Cy".into(),
            text: text.into(),
            team,
            audience: team.map(|_| vec![anna.as_bytes().to_vec()]),
        };
        let log = ChatLog::from_rows([row(3, None, "third"), row(1, None, "first"), row(2, Some(0), "team")]);
        let texts: Vec<String> = log.public().into_iter().map(|l| l.text).collect();
        assert_eq!(texts, ["first", "third"]);
        assert_eq!(log.team_lines_for(&anna)[0].text, "team");
        assert!(log.team_lines_for(&PlayerToken::generate().key()).is_empty());
    }
}
