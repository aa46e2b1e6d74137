pub fn slug(s: &str) -> String {
    s.to_string()
}

pub fn trim(s: &str) -> &str {
    s
}
