#include "cubepl/lexer.hpp"

#include <array>
#include <charconv>
#include <utility>

#include "cubekit/error.hpp"

namespace cubekit::cubepl::detail {
namespace {

bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}
bool is_name_char(char c) {
  return is_letter(c) || is_digit(c) || c == ':' || c == '_' || c == '#' || c == '-';
}
bool is_metric_char(char c) {
  return is_letter(c) || is_digit(c) || c == '_' || c == ':' || c == '=';
}

struct Keyword {
  std::string_view text;
  Tok kind;
  Func func;
};

constexpr std::array kKeywords = {
    Keyword{"if", Tok::kIf, Func::kSqrt},
    Keyword{"elseif", Tok::kElseif, Func::kSqrt},
    Keyword{"else", Tok::kElse, Func::kSqrt},
    Keyword{"while", Tok::kWhile, Func::kSqrt},
    Keyword{"return", Tok::kReturn, Func::kSqrt},
    Keyword{"true", Tok::kTrue, Func::kSqrt},
    Keyword{"false", Tok::kFalse, Func::kSqrt},
    Keyword{"not", Tok::kNot, Func::kSqrt},
    Keyword{"and", Tok::kAnd, Func::kSqrt},
    Keyword{"or", Tok::kOr, Func::kSqrt},
    Keyword{"xor", Tok::kXor, Func::kSqrt},
    Keyword{"eq", Tok::kStrEq, Func::kSqrt},
    Keyword{"seq", Tok::kStrSeq, Func::kSqrt},
    Keyword{"sizeof", Tok::kSizeof, Func::kSqrt},
    Keyword{"defined", Tok::kDefined, Func::kSqrt},
    Keyword{"local", Tok::kLocal, Func::kSqrt},
    Keyword{"global", Tok::kGlobal, Func::kSqrt},
    Keyword{"min", Tok::kMin, Func::kSqrt},
    Keyword{"max", Tok::kMax, Func::kSqrt},
    Keyword{"lowercase", Tok::kLowercase, Func::kSqrt},
    Keyword{"uppercase", Tok::kUppercase, Func::kSqrt},
    Keyword{"env", Tok::kEnv, Func::kSqrt},
    Keyword{"sqrt", Tok::kFunc1, Func::kSqrt},
    Keyword{"sin", Tok::kFunc1, Func::kSin},
    Keyword{"asin", Tok::kFunc1, Func::kAsin},
    Keyword{"cos", Tok::kFunc1, Func::kCos},
    Keyword{"acos", Tok::kFunc1, Func::kAcos},
    Keyword{"tan", Tok::kFunc1, Func::kTan},
    Keyword{"atan", Tok::kFunc1, Func::kAtan},
    Keyword{"exp", Tok::kFunc1, Func::kExp},
    Keyword{"log", Tok::kFunc1, Func::kLog},
    Keyword{"random", Tok::kFunc1, Func::kRandom},
    Keyword{"abs", Tok::kFunc1, Func::kAbs},
    Keyword{"sgn", Tok::kFunc1, Func::kSgn},
    Keyword{"pos", Tok::kFunc1, Func::kPos},
    Keyword{"neg", Tok::kFunc1, Func::kNeg},
    Keyword{"floor", Tok::kFunc1, Func::kFloor},
    Keyword{"ceil", Tok::kFunc1, Func::kCeil},
};

// Longest first, so that `metric::fixed::` wins over `metric::` (flex longest match).
constexpr std::array<std::pair<std::string_view, Tok>, 11> kPrefixes = {{
    {"cube::metric::postderived::", Tok::kGhostPost},
    {"cube::metric::prederived::", Tok::kGhostPre},
    {"cube::init::metric::", Tok::kInitMetric},
    {"cube::metric::minus::", Tok::kMinusMetric},
    {"cube::metric::plus::", Tok::kPlusMetric},
    {"cube::metric::get::", Tok::kMetricGet},
    {"cube::metric::set::", Tok::kMetricSet},
    {"metric::context::", Tok::kMetric},
    {"metric::fixed::", Tok::kMetricFixed},
    {"metric::call::", Tok::kMetricCall},
    {"metric::", Tok::kMetric},
}};

struct Punct {
  std::string_view text;
  Tok kind;
};

// Two-character operators first.
constexpr std::array kPuncts = {
    Punct{"==", Tok::kEq},      Punct{"!=", Tok::kNe},    Punct{"<=", Tok::kLe},
    Punct{">=", Tok::kGe},      Punct{"=~", Tok::kMatch}, Punct{"<<", Tok::kShl},
    Punct{">>", Tok::kShr},     Punct{"(", Tok::kLParen}, Punct{")", Tok::kRParen},
    Punct{"{", Tok::kLBrace},   Punct{"}", Tok::kRBrace}, Punct{"[", Tok::kLBracket},
    Punct{"]", Tok::kRBracket}, Punct{";", Tok::kSemi},   Punct{",", Tok::kComma},
    Punct{"+", Tok::kPlus},     Punct{"-", Tok::kMinus},  Punct{"*", Tok::kStar},
    Punct{"/", Tok::kSlash},    Punct{"^", Tok::kCaret},  Punct{"|", Tok::kBar},
    Punct{"=", Tok::kAssign},   Punct{"<", Tok::kLt},     Punct{">", Tok::kGt},
};

std::string quote_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return std::string("'") + c + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
}

}  // namespace

std::string location(std::string_view source, size_t offset) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < source.size(); ++i) {
    if (source[i] == '\n') {
      ++line;
      column = 1;
    } else if ((static_cast<unsigned char>(source[i]) & 0xC0) != 0x80) {
      ++column;  // count characters, not UTF-8 continuation bytes
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

void fail_at(std::string_view source, size_t offset, const std::string& message) {
  throw CubePLError(location(source, offset) + ": " + message);
}

std::string describe(std::string_view source, const Token& token) {
  if (token.kind == Tok::kEnd) return "end of input";
  std::string_view text = source.substr(token.begin, token.end - token.begin);
  if (text.size() > 24) return "'" + std::string(text.substr(0, 21)) + "...'";
  return "'" + std::string(text) + "'";
}

Lexer::Lexer(std::string_view source, size_t begin, size_t end, bool compatible)
    : src_(source), pos_(begin), end_(end), compat_(compatible) {}

void Lexer::fail(size_t offset, const std::string& message) const {
  fail_at(src_, offset, message);
}

bool Lexer::skip_space() {
  const size_t start = pos_;
  while (pos_ < end_) {
    if (is_blank(src_[pos_])) {
      ++pos_;
    } else if (src_[pos_] == '/' && pos_ + 1 < end_ && src_[pos_ + 1] == '/') {
      const size_t comment = pos_;
      while (pos_ < end_ && src_[pos_] != '\n') ++pos_;
      // CubeLib's comment rule needs the line feed; without it the rest of the text is lost.
      if (pos_ == end_ && compat_) fail(comment, "expected a line end after the comment");
    } else {
      break;
    }
  }
  return pos_ != start;
}

Token Lexer::next() {
  Token t;
  for (;;) {
    t.space_before = skip_space() || t.space_before;
    t.begin = pos_;
    if (pos_ >= end_) {
      t.end = pos_;
      return t;
    }
    const char c = src_[pos_];
    if (is_digit(c) || c == '.') {
      number(t);
    } else if (c == '"') {
      string(t);
    } else if (c == '$') {
      variable(t);
    } else if (is_letter(c)) {
      if (!metric_prefix(t)) word(t);
    } else if (!punctuation(t)) {
      // CubeLib drops bytes no rule matches; we report them.
      if (!compat_) fail(pos_, "unexpected character " + quote_byte(c));
      ++pos_;
      t.space_before = true;
      continue;
    }
    t.end = pos_;
    return t;
  }
}

void Lexer::number(Token& t) {
  const size_t start = pos_;
  size_t dots = 0, digits = 0;
  while (pos_ < end_ && (is_digit(src_[pos_]) || src_[pos_] == '.')) {
    (src_[pos_] == '.' ? dots : digits) += 1;
    ++pos_;
  }
  if (!compat_ && (dots > 1 || digits == 0)) {
    fail(start, "expected a number, found '" + std::string(src_.substr(start, pos_ - start)) + "'");
  }
  // The longest valid decimal prefix, like C atof (compatibility: `1.2.3` is 1.2, `.` is 0).
  double value = 0;
  std::from_chars(src_.data() + start, src_.data() + pos_, value, std::chars_format::fixed);
  t.kind = Tok::kNumber;
  t.number = value;
}

void Lexer::string(Token& t) {
  const size_t start = pos_++;
  t.kind = Tok::kString;
  while (pos_ < end_ && src_[pos_] != '"') {
    char c = src_[pos_++];
    if (c == '\\' && pos_ < end_) {
      c = src_[pos_++];
      if (c == 't') c = '\t';
      if (c == 'n') c = '\n';
    }
    t.text.push_back(c);
  }
  if (pos_ >= end_) fail(start, "expected '\"' closing this string, found end of input");
  ++pos_;
}

void Lexer::variable(Token& t) {
  const size_t start = pos_++;
  t.kind = Tok::kVar;
  auto skip_blanks = [&] {
    while (pos_ < end_ && is_blank(src_[pos_])) ++pos_;
  };
  skip_blanks();
  if (pos_ >= end_ || src_[pos_] != '{') fail(pos_, "expected '{' after '$'");
  ++pos_;
  skip_blanks();
  while (pos_ < end_ && src_[pos_] != '}') {
    const char c = src_[pos_];
    const bool ok = t.text.empty() ? is_letter(c) : is_name_char(c);
    if (ok) {
      t.text.push_back(c);
      ++pos_;
    } else if (is_blank(c)) {
      skip_blanks();
      if (pos_ < end_ && src_[pos_] != '}') {
        fail(pos_, "expected '}', found " + quote_byte(src_[pos_]));
      }
    } else if (compat_) {
      ++pos_;  // CubeLib drops other bytes inside the braces
    } else {
      fail(pos_, "expected a variable name character, found " + quote_byte(c));
    }
  }
  if (pos_ >= end_) fail(start, "expected '}' closing this variable, found end of input");
  if (t.text.empty()) fail(pos_, "expected a variable name, found '}'");
  ++pos_;
}

void Lexer::word(Token& t) {
  const size_t start = pos_;
  while (pos_ < end_ && is_letter(src_[pos_])) ++pos_;
  const std::string_view w = src_.substr(start, pos_ - start);
  if (w == "arg" && pos_ < end_ && (src_[pos_] == '1' || src_[pos_] == '2')) {
    t.kind = src_[pos_++] == '1' ? Tok::kArg1 : Tok::kArg2;
    return;
  }
  for (const auto& k : kKeywords) {
    if (k.text == w) {
      t.kind = k.kind;
      t.func = k.func;
      return;
    }
  }
  t.kind = Tok::kWord;
  t.text = std::string(w);
}

bool Lexer::metric_prefix(Token& t) {
  const std::string_view rest = src_.substr(pos_, end_ - pos_);
  for (const auto& [prefix, kind] : kPrefixes) {
    if (!rest.starts_with(prefix)) continue;
    const bool attach =
        kind == Tok::kInitMetric || kind == Tok::kPlusMetric || kind == Tok::kMinusMetric;
    if (attach && compat_) fail(pos_, "'" + std::string(prefix) + "' is not usable in CubeLib 4.6");
    pos_ += prefix.size();
    while (pos_ < end_ && (src_[pos_] == ' ' || src_[pos_] == '\t')) ++pos_;
    const size_t name = pos_;
    while (pos_ < end_ && is_metric_char(src_[pos_])) ++pos_;
    if (pos_ == name) fail(pos_, "expected a metric name after '" + std::string(prefix) + "'");
    t.kind = kind;
    t.text = std::string(src_.substr(name, pos_ - name));
    return true;
  }
  return false;
}

bool Lexer::punctuation(Token& t) {
  const std::string_view rest = src_.substr(pos_, end_ - pos_);
  for (const auto& p : kPuncts) {
    if (rest.starts_with(p.text)) {
      t.kind = p.kind;
      pos_ += p.text.size();
      return true;
    }
  }
  return false;
}

Token Lexer::regex() {
  Token t = token_here(Tok::kRegex);
  while (pos_ < end_ && is_blank(src_[pos_])) ++pos_;
  t.begin = pos_;
  if (pos_ >= end_ || src_[pos_] != '/') {
    Token found = next();
    fail(found.begin, "expected '/' starting a regular expression, found " + describe(src_, found));
  }
  ++pos_;
  bool leading = true;  // CubeLib knows `\/` only at the start of the body
  while (pos_ < end_ && src_[pos_] != '/') {
    if (src_[pos_] == '\\' && pos_ + 1 < end_ && src_[pos_ + 1] == '/' && (leading || !compat_)) {
      t.text.push_back('/');
      pos_ += 2;
      continue;
    }
    leading = false;
    t.text.push_back(src_[pos_++]);
  }
  if (pos_ >= end_)
    fail(t.begin, "expected '/' closing this regular expression, found end of input");
  ++pos_;
  t.end = pos_;
  return t;
}

Token Lexer::token_here(Tok kind) const {
  Token t;
  t.kind = kind;
  t.begin = pos_;
  return t;
}

Token Lexer::paren_name() {
  Token t = token_here(Tok::kWord);
  if (pos_ >= end_ || src_[pos_] != '(') {
    const Token found = next();
    fail(found.begin, "expected '(' directly after the keyword, found " + describe(src_, found));
  }
  ++pos_;
  while (pos_ < end_ && is_blank(src_[pos_])) ++pos_;
  const size_t name = pos_;
  if (pos_ < end_ && is_letter(src_[pos_])) {
    while (pos_ < end_ && is_name_char(src_[pos_])) ++pos_;
  }
  if (pos_ == name) fail(pos_, "expected a variable name");
  t.text = std::string(src_.substr(name, pos_ - name));
  while (pos_ < end_ && is_blank(src_[pos_])) ++pos_;
  if (pos_ >= end_ || src_[pos_] != ')') fail(pos_, "expected ')' after the variable name");
  ++pos_;
  t.end = pos_;
  return t;
}

Token Lexer::raw_text() {
  Token t = token_here(Tok::kRaw);
  const size_t close = src_.substr(0, end_).find(">>", pos_);
  if (close == std::string_view::npos)
    fail(pos_, "expected '>>' closing the embedded text, found end of input");
  t.text = std::string(src_.substr(pos_, close - pos_));
  pos_ = close + 2;
  t.end = pos_;
  return t;
}

}  // namespace cubekit::cubepl::detail
