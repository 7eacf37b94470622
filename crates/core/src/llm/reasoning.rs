//! A reasoning model's reply as text: the reasoning it wrote before its answer, kept apart so that
//! answers are read from the final answer only (issue 49). Local servers and some hosted models put the
//! reasoning in the text between `<think>` and `</think>` (also `<thinking>`, `<reasoning>`); a chat
//! template that opens the block in the prompt leaves only the closing tag in the reply; a reply cut off
//! by the token limit may end inside the block. Hosted APIs that return reasoning in fields or blocks of
//! their own are read by the provider code (`wmlab_llm::provider`); what is left is text, read here.

/// The tags that open and close a reasoning block in a text reply.
const TAGS: [(&str, &str); 3] =
    [("<think>", "</think>"), ("<thinking>", "</thinking>"), ("<reasoning>", "</reasoning>")];

/// A reply split into its final answer and its reasoning.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Split {
    /// The text outside every reasoning block, trimmed: what answers are read from.
    pub answer: String,
    /// The reasoning blocks' text, in order, joined by blank lines; `None` when there was none.
    pub reasoning: Option<String>,
}

/// Split `text` into its answer and its reasoning (see the module's doc). A reply without reasoning
/// tags is its own answer, unchanged.
pub fn split_reasoning(text: &str) -> Split {
    if !TAGS.iter().any(|(open, close)| text.contains(open) || text.contains(close)) {
        return Split { answer: text.to_string(), reasoning: None };
    }
    let mut answer = String::new();
    let mut thoughts: Vec<String> = Vec::new();
    let mut rest = text;
    // A closing tag before any opening one: the template opened the block in the prompt, so everything
    // before it is reasoning.
    let first_open = TAGS.iter().filter_map(|(open, _)| rest.find(open)).min();
    let first_close = TAGS.iter().filter_map(|(_, close)| rest.find(close).map(|i| (i, close.len()))).min();
    if let Some((i, len)) = first_close
        && first_open.is_none_or(|o| i < o)
    {
        thoughts.push(rest[..i].trim().to_string());
        rest = &rest[i + len..];
    }
    loop {
        let next = TAGS.iter().filter_map(|&(open, close)| rest.find(open).map(|i| (i, open, close))).min();
        let Some((i, open, close)) = next else {
            answer.push_str(rest);
            break;
        };
        answer.push_str(&rest[..i]);
        let inside = &rest[i + open.len()..];
        match inside.find(close) {
            Some(j) => {
                thoughts.push(inside[..j].trim().to_string());
                rest = &inside[j + close.len()..];
            }
            None => {
                // Cut off while reasoning: no answer after it.
                thoughts.push(inside.trim().to_string());
                break;
            }
        }
    }
    let thoughts: Vec<String> = thoughts.into_iter().filter(|t| !t.is_empty()).collect();
    Split { answer: answer.trim().to_string(), reasoning: (!thoughts.is_empty()).then(|| thoughts.join("\n\n")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> (String, Option<String>) {
        let s = split_reasoning(text);
        (s.answer, s.reasoning)
    }

    #[test]
    fn a_reply_without_tags_is_its_own_answer() {
        assert_eq!(split("  m\n"), ("  m\n".to_string(), None));
        assert_eq!(split("The number is 7."), ("The number is 7.".to_string(), None));
    }

    #[test]
    fn reasoning_blocks_are_taken_out() {
        assert_eq!(
            split("<think>Two back was K, this is K: m?\nNo, it is X.</think>\n\n-"),
            ("-".to_string(), Some("Two back was K, this is K: m?\nNo, it is X.".to_string()))
        );
        assert_eq!(
            split("<thinking>a</thinking>The number is 3.<reasoning> b </reasoning>"),
            ("The number is 3.".to_string(), Some("a\n\nb".to_string()))
        );
        // Only the closing tag: the template opened the block.
        assert_eq!(
            split("I count 9 lines.\n</think>\nThe number is 4."),
            ("The number is 4.".to_string(), Some("I count 9 lines.".to_string()))
        );
        // Cut off inside the block: reasoning, and no answer.
        assert_eq!(split("<think>Let me count: 1, 2, 3"), (String::new(), Some("Let me count: 1, 2, 3".to_string())));
        // An empty block (a model told not to think) leaves the answer alone.
        assert_eq!(split("<think>\n\n</think>\n\nm"), ("m".to_string(), None));
    }
}
