// The CubePL scanner (cubepl.md §2). CubePL is not context free at the token level: after
// `=~` comes a regex, after a ghost header raw text up to `>>`, after `metric::` a metric name.
// The parser therefore pulls tokens one at a time and asks for the special readers exactly
// where its grammar position calls for them; everything else is one ordinary token set.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cubekit::cubepl::detail {

enum class Tok : uint8_t {
  kEnd,
  kNumber,
  kString,
  kVar,   // ${name}, the whole reference up to `}`
  kWord,  // a letter run that is no keyword (`i`, `e` in modifier lists; an error elsewhere)
  kRegex,
  kRaw,
  // punctuation
  kLParen,
  kRParen,
  kLBrace,
  kRBrace,
  kLBracket,
  kRBracket,
  kSemi,
  kComma,
  kPlus,
  kMinus,
  kStar,
  kSlash,
  kCaret,
  kBar,
  kAssign,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kMatch,
  kShl,
  kShr,
  // keywords
  kIf,
  kElseif,
  kElse,
  kWhile,
  kReturn,
  kTrue,
  kFalse,
  kNot,
  kAnd,
  kOr,
  kXor,
  kStrEq,
  kStrSeq,
  kSizeof,
  kDefined,
  kLocal,
  kGlobal,
  kArg1,
  kArg2,
  kFunc1,  // sqrt … ceil; Token::func says which
  kMin,
  kMax,
  kLowercase,
  kUppercase,
  kEnv,
  // metric prefixes; Token::text holds the metric name that follows
  kMetric,  // metric:: and metric::context::
  kMetricFixed,
  kMetricCall,
  kMetricGet,
  kMetricSet,
  kGhostPost,
  kGhostPre,
  kInitMetric,
  kPlusMetric,
  kMinusMetric,
};

enum class Func : uint8_t {
  kSqrt,
  kSin,
  kAsin,
  kCos,
  kAcos,
  kTan,
  kAtan,
  kExp,
  kLog,
  kRandom,
  kAbs,
  kSgn,
  kPos,
  kNeg,
  kFloor,
  kCeil,
};

struct Token {
  Tok kind = Tok::kEnd;
  size_t begin = 0, end = 0;  // byte offsets into the whole source
  bool space_before = false;  // white space or a comment directly before the token
  std::string text;           // string body, variable name, metric name, word, regex, raw text
  double number = 0;
  Func func = Func::kSqrt;
};

// "line:column" (1-based, columns in characters) of a byte offset of `source`.
std::string location(std::string_view source, size_t offset);

// Throws CubePLError "line:column: message" for a byte offset of `source`.
[[noreturn]] void fail_at(std::string_view source, size_t offset, const std::string& message);

// "';'", "end of input", "'iff'" ... for messages.
std::string describe(std::string_view source, const Token& token);

class Lexer {
 public:
  // Scans source[begin, end); offsets and messages refer to the whole source.
  Lexer(std::string_view source, size_t begin, size_t end, bool compatible);

  Token next();
  Token regex();     // directly after `=~`: `/body/`
  Token raw_text();  // directly after `<<`: everything up to the first `>>`
  // Directly after sizeof / defined / local / global: `(` NAME `)`, the `(` immediately.
  // A token of `kind` starting at the current position.
  Token token_here(Tok kind) const;
  Token paren_name();
  std::string_view source() const { return src_; }
  size_t position() const { return pos_; }

 private:
  bool skip_space();  // returns whether anything was skipped
  void number(Token& t);
  void string(Token& t);
  void variable(Token& t);
  void word(Token& t);
  bool metric_prefix(Token& t);
  bool punctuation(Token& t);
  [[noreturn]] void fail(size_t offset, const std::string& message) const;

  std::string_view src_;
  size_t pos_, end_;
  bool compat_;
};

}  // namespace cubekit::cubepl::detail
