//! The ideas the scanner's rules are made of, each as the words several
//! languages use for it (English, Spanish, French, German, Portuguese,
//! Russian, Chinese). A rule asks whether a sentence holds an idea, never
//! for a fixed phrase, so a paraphrase that keeps the meaning keeps the
//! finding.
//!
//! Words match at the start of a word and may go on ("read" finds
//! "reading"), so one stem covers a language's endings.

use aho_corasick::{AhoCorasick, AhoCorasickKind};

/// One idea's words, with the matcher that finds them all in one pass,
/// built at the list's first use and kept with it.
pub struct Words {
    list: &'static [&'static str],
    matcher: std::sync::OnceLock<AhoCorasick>,
}

impl Words {
    pub const fn new(list: &'static [&'static str]) -> Self {
        Self {
            list,
            matcher: std::sync::OnceLock::new(),
        }
    }

    pub(super) fn matcher(&self) -> &AhoCorasick {
        self.matcher.get_or_init(|| {
            // A contiguous NFA rather than the DFA the crate picks for
            // short lists: the texts scanned are a tool's few sentences,
            // and the lists' DFAs held 1.8 MB for the life of a proxy (as
            // NFAs 0.28 MB).
            AhoCorasick::builder()
                .kind(Some(AhoCorasickKind::ContiguousNFA))
                .build(self.patterns())
                .expect("the lexicon's word lists make a matcher")
        })
    }

    /// The words as matched: a word's closing `|` is not part of it.
    fn patterns(&self) -> impl Iterator<Item = &'static str> {
        self.list.iter().map(|w| w.strip_suffix('|').unwrap_or(w))
    }
}

impl std::ops::Deref for Words {
    type Target = [&'static str];

    fn deref(&self) -> &Self::Target {
        self.list
    }
}

/// Files and stores that hold credentials: reading them is never the job
/// of a tool that does not say so in its name.
pub static SECRET_FILES: Words = Words::new(&[
    "~/.ssh", ".ssh/", "ssh/id_", "id_rsa", "id rsa", "id_ed25519", "id ed25519", "id_ecdsa",
    "id_dsa", "private key", "private_key", "privatekey", "ssh key", "ssh private", ".aws/",
    "aws/credentials", ".netrc", "netrc", "/etc/passwd", "/etc/shadow", "mcp.json",
    "claude_desktop_config", ".git-credentials", ".npmrc", ".pypirc", ".kube/config",
    "keychain", "wallet.dat", "seed phrase", "mnemonic", ".env ", ".env`", ".env'", ".env\"",
    ".env,", ".env)", ".env file", "dotenv file", "clave privada", "clé privée",
    "privater schlüssel", "chave privada", "закрытый ключ", "приватный ключ", "私钥",
]);

/// Secrets a person holds: passwords, tokens, keys, cards.
pub static SECRETS: Words = Words::new(&[
    "password", "passwd", "passphrase", "api key", "api_key", "apikey", "api token",
    "access token", "auth token", "bearer token", "secret key", "credentials", "credential",
    "cookie", "session token", "card number", "credit card", "environment variable", "env var",
    "contraseña", "credenciales", "mot de passe", "identifiants", "passwort", "zugangsdaten",
    "senha", "credenciais", "пароль", "токен", "учетные данные", "密码", "令牌", "凭据", "环境变量",
    "variables de entorno", "variables d'environnement", "umgebungsvariablen",
]);

/// What a person said to the model, and what the host told it.
pub static CONVERSATION: Words = Words::new(&[
    "conversation history", "entire conversation", "whole conversation", "full conversation",
    "this conversation", "conversation so far", "chat history", "chat log", "transcript|",
    "system prompt", "system message", "previous message", "prior message", "earlier message",
    "everything the user", "all messages", "the user's message", "user's first message",
    "most recent message", "latest message", "last message",
    "message history", "instrucciones del sistema", "historial", "historique", "invite système",
    "gesprächsverlauf", "chatverlauf", "histórico", "истори", "переписк", "системн", "对话记录",
    "对话历史", "聊天记录", "系统提示",
]);

/// Getting hold of something's contents.
pub static ACQUIRE: Words = Words::new(&[
    "read", "open", "load", "cat ", "gather", "collect", "copy", "dump", "extract", "retrieve",
    "contents of", "content of", "content from", "contents from", "text of", "whole text",
    "verbatim", "from reading", "from keychain", "from the keychain", "lee ", "leer", "lea ",
    "lis ", "lisez", "lire", "lies ", "lesen", "lese ", "leia", "ler ", "прочит", "прочт",
    "читай", "содержим", "读取", "读", "内容", "contenido", "contenu", "inhalt", "conteúdo",
]);

/// Handing something over: into an argument, or out to somewhere else.
/// A short stem ends at a word's end (`|`) where longer English words
/// begin with it: "mandatory" is not Spanish "manda", "Postgres" and
/// "postal" not "post", "placeholder" not "place", "copyright" not "copy",
/// "sender" not German "sende".
pub static HAND_OVER: Words = Words::new(&[
    "pass|", "passing", "passed", "put ", "put it", "place|", "places|", "placed", "placing",
    "include", "insert", "supply", "hand ", "fill|", "fills", "filled", "filling", "attach",
    "append", "send", "post|", "posts|", "posted", "posting", "upload", "forward", "transmit",
    "email", "submit", "copy|", "copies", "copied", "copying", "as '", "as `", "as \"",
    "argument", "parameter", "field", "http://", "https://", "webhook", "envía", "enviar",
    "envíe", "envie", "manda|", "mande|", "pon ", "parámetro", "envoy", "mettez", "mets ",
    "transmet", "paramètre", "übergib", "übergeben", "sende|", "senden", "schick", "füge",
    "parâmetro", "coloque", "передай", "передать", "отправ", "вставь", "параметр", "放入", "发送",
    "传入", "参数", "填入",
]);

/// All of something, or every time.
pub static EVERY: Words = Words::new(&[
    "all ", "every", "any ", "entire", "whole", "whenever", "always", "todos", "todas", "cada",
    "tous", "toutes", "chaque", "alle", "jede", "qualquer", "все", "любо", "всегда", "所有", "任何",
    "每",
]);

/// When the rest of a sentence applies: before, at the start of, whatever.
pub static TRIGGER: Words = Words::new(&[
    "before", "prior to", "ahead of", "whenever", "at the start of", "at the beginning of",
    "no matter", "regardless", "first ", "antes de", "avant", "vor ", "перед", "在调用", "之前",
    "无论",
]);

/// What a trigger ranges over: calls, tools, answers, sessions.
pub static ACTIVITY: Words = Words::new(&[
    "tool", "call", "command", "request", "response", "answer", "conversation", "session",
    "message", "action", "ferramenta", "herramienta", "outil", "appel", "werkzeug", "aufruf",
    "инструмент", "вызов", "запрос", "工具", "调用",
]);

/// Telling the model what it must do.
pub static DIRECTIVE: Words = Words::new(&[
    "must", "has to", "have to", "need to", "always", "first", "start every", "prepend",
    "call this", "call init", "invoke this", "run `", "be invoked", "be called", "chame",
    "rufe", "llama", "appelez", "appelle", "muss", "debe", "doit", "deve", "должен", "必须", "请",
]);

/// Setting aside what the model was told before.
pub static DISREGARD: Words = Words::new(&[
    "ignore", "disregard", "forget", "override", "are void", "is void", "no longer apply",
    "no longer valid", "ignora", "olvida", "ignorez", "oublie", "ignoriere", "vergiss",
    "esqueça", "игнорируй", "игнорировать", "забудь", "忽略", "忘记",
]);

/// Instructions the host or person gave.
pub static INSTRUCTIONS: Words = Words::new(&[
    "instruction", "guideline", "rules", "policy", "policies", "system prompt", "directive",
    "instrucciones", "reglas", "consignes", "anweisungen", "regeln", "instruções", "regras",
    "инструкци", "правила", "指令", "指示", "规则",
]);

/// What came before this tool's text.
pub static EARLIER: Words = Words::new(&[
    "previous", "prior", "earlier", "above", "preceding", "all ", "your ", "system",
    "were given", "anteriores", "précédentes", "précédents", "vorherigen", "bisherigen",
    "alle ", "todas", "предыдущ", "все ", "之前", "以前", "所有",
]);

/// Not, never, without.
pub static NEGATION: Words = Words::new(&[
    "do not", "don't", "dont ", "never", "not ", "without", "no ", "nunca", "ne ", "n'",
    "jamais", "nicht", "niemals", "kein", "não", "sem ", "не ", "никогда", "不要", "不", "别", "勿",
]);

/// Words that forbid what follows them, beside the negations: "avoid
/// including", "refrain from sending".
pub static FORBIDDING: Words = Words::new(&[
    "avoid", "refrain", "must not", "evita", "évitez", "vermeide",
]);

/// Telling, showing or mentioning something to someone.
pub static TELL: Words = Words::new(&[
    "tell", "mention", "inform", "notify", "reveal", "show", "bring it up", "bring up",
    "let the user know", "disclose", "alert", "digas", "diga|", "menciones", "mencione",
    "informar", "informes", "contar", "cuentes", "dire|", "dites", "parlez", "parler",
    "montrez", "montrer", "mentionnez", "sagen", "sag ", "erwähn", "informier", "zeig",
    "говори", "сообщ", "упомина", "показыва", "告诉", "提及", "透露", "显示",
]);

/// The person using the host.
pub static USER: Words = Words::new(&[
    "user", "person you", "the person", "the human", "usuario", "utilisateur", "benutzer",
    "nutzer", "usuário", "пользовател", "用户",
]);

/// Doing something out of the person's sight.
pub static SECRETLY: Words = Words::new(&[
    "quietly", "silently", "secretly", "covertly", "behind the user", "keep this secret",
    "keep it secret", "keep this hidden", "keep it hidden", "en secreto", "en silencio",
    "en secret", "heimlich", "em segredo", "тайно", "незаметно", "悄悄", "秘密地",
]);

/// Another tool, named in words.
pub static OTHER_TOOLS: Words = Words::new(&[
    "other tool", "another tool", "other server", "any tool", "all tools", "every tool",
    "other servers",
]);

/// Making a named tool behave otherwise than its caller asked.
pub static ALTER: Words = Words::new(&[
    "always", "regardless", "set the", "add ", "also", "as well", "force", "redirect",
    "replace", "override", "only use", "en copie", "ajoutez", "toujours", "immer", "ab sofort",
    "siempre", "sempre", "всегда", "总是", "始终",
]);

/// Using or calling a tool.
pub static USE: Words = Words::new(&[
    "use", "using", "call", "invok", "run", "sent with", "written with", "utilis", "verwend",
    "benutz", "aufgeruf", "usa", "usad", "llamad", "使用", "调用", "использ", "вызыва",
]);

/// When or if.
pub static WHEN: Words = Words::new(&[
    "when", "whenever", "if ", "once", "every time", "each time", "any time", "quand",
    "lorsque", "wenn", "cuando", "si ", "quando", "когда", "если", "当", "如果",
]);

/// Obligation on a third party.
pub static OBLIGATION: Words = Words::new(&[
    "must", "has to", "have to", "should", "needs to", "muss", "debe", "doit", "deve", "должен",
    "必须",
]);

/// Markers of a chat template's turns, which a tool's text has no reason
/// to hold.
pub static ROLE_MARKERS: Words = Words::new(&[
    "<|im_start|>", "<|im_end|>", "<|system|>", "<|user|>", "<|assistant|>", "<|endoftext|>",
    "<|eot_id|>", "<|start_header_id|>", "[inst]", "[/inst]", "<<sys>>", "<</sys>>", "<system>",
    "</system>", "<system ", "<assistant>", "</assistant>", "</user>", "<start_of_turn>",
    "<end_of_turn>",
]);

/// Turn headings at the start of a line ("### System:", "Human:").
pub static ROLE_HEADINGS: Words = Words::new(&[
    "### system", "### assistant", "### instruction", "## system", "system:", "assistant:",
    "human:",
]);

/// Words that show a sentence speaks to the model rather than describing
/// what the tool does: an obligation, "you", the model named, a moment
/// before or after something.
pub static ADDRESSED: Words = Words::new(&[
    "you", "your", "the assistant", "the model", "the ai", "the agent", "the llm", "must",
    "should", "always", "need to", "has to", "make sure", "before", "prior to", "please",
    "whenever", "vous", "tu ", "du ", "debe", "debes", "antes de", "avant", "vor ", "muss",
    "musst", "deve", "você", "перед", "должен", "ты ", "вы ", "请", "必须", "之前", "你",
]);

/// Imperatives that open a sentence addressed to the model.
pub static IMPERATIVES: Words = Words::new(&[
    "read", "open", "load", "pass", "put", "place", "include", "insert", "supply", "send",
    "post", "upload", "forward", "copy", "attach", "append", "collect", "gather", "dump",
    "fill", "provide", "enviar", "envía", "envia", "lee", "pon", "incluye", "lis", "lisez",
    "envoyez", "mettez", "lies", "sende", "übergib", "leia", "envie", "coloque", "прочитай",
    "передай", "отправь", "读取", "发送",
]);

/// A quantifier over calls ("any tool", "every call", "each response").
pub static QUANTIFIER: Words = Words::new(&[
    "any ", "every", "each", "all ", "other", "cualquier", "cada", "todo", "tout", "chaque",
    "jede", "alle", "qualquer", "любо", "кажд", "всех", "任何", "每", "所有",
]);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_matchers_stay_small_for_the_life_of_a_proxy() {
        let lists: [&Words; 27] = [&FORBIDDING, &SECRET_FILES, &SECRETS, &CONVERSATION, &ACQUIRE, &HAND_OVER, &EVERY, &TRIGGER, &ACTIVITY, &DIRECTIVE, &DISREGARD, &INSTRUCTIONS, &EARLIER, &NEGATION, &TELL, &USER, &SECRETLY, &OTHER_TOOLS, &ALTER, &USE, &WHEN, &OBLIGATION, &ROLE_MARKERS, &ROLE_HEADINGS, &ADDRESSED, &IMPERATIVES, &QUANTIFIER, ];
        let bytes: usize = lists.iter().map(|w| w.matcher().memory_usage()).sum();
        let as_dfas: usize = lists
            .iter()
            .map(|w| {
                AhoCorasick::builder()
                    .kind(Some(AhoCorasickKind::DFA))
                    .build(w.patterns())
                    .expect("a DFA")
                    .memory_usage()
            })
            .sum();
        eprintln!("the matchers hold {bytes} bytes; as DFAs {as_dfas}");
        // Built once and kept for the life of a proxy.
        assert!(bytes * 3 < as_dfas, "{bytes} bytes against {as_dfas} as DFAs");
        let text = "please read the secret api keys";
        assert!(SECRETS.matcher().find(text).is_some());
    }
}
