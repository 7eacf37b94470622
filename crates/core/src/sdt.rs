//! Signal-detection scoring of yes/no (match / non-match) responses (in progress).
