// XmlStream (src/format/xml_stream.hpp) and XmlPull over it (xml_pull.hpp): tokens, offsets
// and refusals on small documents written here, each expectation read off the document by hand.
#include "format/xml_stream.hpp"

#include "cubekit/error.hpp"
#include "format/anchor.hpp"
#include "format/xml_pull.hpp"
#include "unit/tar_builder.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace cubekit::format {
namespace {

using Token = XmlStream::Token;

// The tokens as "<name a=v>", "</name>", "text" (raw), one string each.
std::vector<std::string> tokens(std::string_view doc) {
  XmlStream xml(doc);
  std::vector<std::string> out;
  for (Token t; (t = xml.next()) != Token::kEndOfInput;) {
    if (t == Token::kStart) {
      std::string s = "<" + std::string(xml.name());
      for (const XmlAttribute& a : xml.attributes())
        s += " " + std::string(a.name) + "=" + std::string(a.raw_value);
      out.push_back(s + ">");
    } else if (t == Token::kEnd) {
      out.push_back("</" + std::string(xml.name()) + ">");
    } else {
      out.push_back(std::string(xml.text()));
    }
  }
  return out;
}

// The offset and message of the syntax error `doc` raises ("" when it raises none).
std::pair<size_t, std::string> error_of(std::string_view doc) {
  try {
    tokens(doc);
  } catch (const XmlSyntaxError& e) {
    return {e.offset(), e.what()};
  }
  return {0, ""};
}

TEST(XmlStream, ElementsAttributesAndText) {
  const std::vector<std::string> expected = {"\n",        "<a x=1 y=two>", "\n ",  "<b>", "</b>",
                                             "<c q=a>b>", "t&amp;",        "</c>", "</a>"};
  EXPECT_EQ(
      tokens("<?xml version=\"1.0\"?>\n<a x=\"1\" y='two'>\n <b/><c q=\"a>b\">t&amp;</c></a>"),
      expected);
}

TEST(XmlStream, CommentsInstructionsDoctypeAndCdata) {
  const std::vector<std::string> expected = {"<r>", "<x>y", "</r>"};
  EXPECT_EQ(tokens("<!DOCTYPE r [ <!ENTITY e \"]>\"> ]><!-- <no/> --><r><?pi <no/>?>"
                   "<![CDATA[<x>y]]></r>"),
            expected);
}

TEST(XmlStream, DepthOffsetsAndAttributeLookup) {
  const std::string doc = "<r>\n  <d spc=\"t1\">5</d></r>";
  XmlStream xml(doc);
  EXPECT_EQ(xml.next(), Token::kStart);
  EXPECT_EQ(xml.depth(), 1u);
  EXPECT_EQ(xml.next(), Token::kText);
  EXPECT_EQ(xml.next(), Token::kStart);
  EXPECT_EQ(xml.token_offset(), 6u);
  EXPECT_EQ(xml.depth(), 2u);
  EXPECT_EQ(xml.attribute("spc"), "t1");
  EXPECT_EQ(xml.attribute("metric"), "");
  EXPECT_EQ(line_column(doc, static_cast<ptrdiff_t>(xml.token_offset())), "2:3");
}

TEST(XmlStream, SkipElementPassesOverItsSubtree) {
  const std::string doc = "<r><big a=\"/>\"><x/><y>t<!-- </big> --></y></big><after/></r>";
  XmlStream xml(doc);
  xml.next();  // <r>
  ASSERT_EQ(xml.next(), Token::kStart);
  ASSERT_EQ(xml.name(), "big");
  xml.skip_element();
  EXPECT_EQ(xml.depth(), 1u);
  ASSERT_EQ(xml.next(), Token::kStart);
  EXPECT_EQ(xml.name(), "after");
  xml.skip_element();  // an empty element
  EXPECT_EQ(xml.next(), Token::kEnd);
  EXPECT_EQ(xml.name(), "r");
  EXPECT_EQ(xml.next(), Token::kEndOfInput);
  // A subtree that never closes is an error there too.
  XmlStream open("<r><big><x>");
  open.next();
  open.next();
  EXPECT_THROW(open.skip_element(), XmlSyntaxError);
}

TEST(XmlStream, SkipElementChecksTheEndTagsOfLeaves) {
  // Leaves are passed in one step; one whose end tag names another element is still refused.
  const std::string doc = "<r><big><d a=\"1\">v</d><d>w</e></big></r>";
  XmlStream xml(doc);
  xml.next();
  xml.next();
  const auto [at, what] = [&]() -> std::pair<size_t, std::string> {
    try {
      xml.skip_element();
    } catch (const XmlSyntaxError& e) {
      return {e.offset(), e.what()};
    }
    return {0, ""};
  }();
  EXPECT_EQ(at, doc.find("</e>"));
  EXPECT_EQ(what, "</e> where </d> was expected");
}

TEST(XmlStream, NextLeafReadsTheCommonFormInOneStep) {
  const std::string doc =
      "<r>\n <d spc=\"t1\">12</d><d spc='t2'>a&amp;b</d>"
      "<d spc=\"t3\" >3</d><d a=\"1\" b=\"2\">4</d><d c=\"x\"><d/></d><e k=\"v\">5</e></r>";
  XmlStream xml(doc);
  xml.next();  // <r>
  XmlAttribute id;
  std::string_view text;
  ASSERT_TRUE(xml.next_leaf("d", id, text));  // white space before it is passed too
  EXPECT_EQ(id.name, "spc");
  EXPECT_EQ(id.raw_value, "t1");
  EXPECT_EQ(text, "12");
  EXPECT_EQ(xml.token_offset(), doc.find("<d spc=\"t1\">"));
  ASSERT_TRUE(xml.next_leaf("d", id, text));
  EXPECT_EQ(id.raw_value, "t2");
  EXPECT_EQ(text, "a&amp;b");  // raw, as next() gives text
  EXPECT_EQ(xml.depth(), 1u);
  // Other forms are left to next(), nothing consumed: a space before '>', two attributes,
  // an element inside, another name.
  for (const char* other : {"<d spc=\"t3\" >", "<d a=\"1\" b=\"2\">", "<d c=\"x\">", "<e k"}) {
    const size_t before = xml.position();
    EXPECT_FALSE(xml.next_leaf("d", id, text)) << other;
    EXPECT_EQ(xml.position(), before);
    ASSERT_EQ(xml.next(), Token::kStart);
    EXPECT_EQ(xml.token_offset(), doc.find(other));
    xml.skip_element();
  }
  EXPECT_FALSE(xml.next_leaf("d", id, text));  // </r>
  EXPECT_EQ(xml.next(), Token::kEnd);
  // A leaf cut off by the end of the document is no leaf.
  XmlStream cut("<r><d spc=\"t1\">12</d");
  cut.next();
  EXPECT_FALSE(cut.next_leaf("d", id, text));
}

// Leaves in every form next_leaf may meet, each followed by enough document that the 64-byte
// look (xml_stream.cpp) is taken, and the same leaves in the last bytes, where it is not: the
// attribute and text read are the ones written here, or nothing is consumed.
TEST(XmlStream, NextLeafGivesTheSameInsideAndAtTheEndOfTheDocument) {
  struct Leaf {
    std::string xml;
    bool read;  // by next_leaf (else: left to next())
    std::string attribute, value, text;
  };
  const std::string long_text(70, '9');
  const std::vector<Leaf> leaves = {
      {"<d spc=\"t1\">12</d>", true, "spc", "t1", "12"},
      {"<d spc='t2'>-3.5e+07</d>", true, "spc", "t2", "-3.5e+07"},
      {"<d spc=\"a>b\">1</d>", true, "spc", "a>b", "1"},  // '>' in the value
      {"<d spc=\"x'y\">2</d>", true, "spc", "x'y", "2"},  // the other quote in it
      {"<d spc=\"t3\">" + long_text + "</d>", true, "spc", "t3", long_text},  // > 64 bytes
      {"<d spc=\"t4\">1&lt;2</d>", true, "spc", "t4", "1&lt;2"},
      {"<d spc=\"t5\">a>b</d>", true, "spc", "t5", "a>b"},
      {"<d spc=\"t6\">\r\n 5\r\n</d>", true, "spc", "t6", "\r\n 5\r\n"},
      {"<d code=\"c7\"></d>", true, "code", "c7", ""},
      {"<d spc=\"t8\" code=\"c1\">3</d>", false, "", "", ""},
      {"<d  spc=\"t9\">3</d>", false, "", "", ""},
      {"<d spc=\"t10\"/>", false, "", "", ""},
      {"<d spc=\"t11\">4</e>", false, "", "", ""},
      {"<d spc=\"t12\"><![CDATA[5]]></d>", false, "", "", ""},
      {"<dd spc=\"t13\">6</dd>", false, "", "", ""},
  };
  const std::string padding(80, ' ');
  for (const Leaf& leaf : leaves) {
    for (const bool at_end : {false, true}) {
      const std::string doc = "<r>\r\n" + leaf.xml + (at_end ? "" : padding + "</r>");
      XmlStream xml(doc);
      xml.next();
      XmlAttribute id;
      std::string_view text;
      const size_t before = xml.position();
      ASSERT_EQ(xml.next_leaf("d", id, text), leaf.read) << leaf.xml << " at_end " << at_end;
      if (!leaf.read) {
        EXPECT_EQ(xml.position(), before) << leaf.xml;
        continue;
      }
      EXPECT_EQ(id.name, leaf.attribute) << leaf.xml;
      EXPECT_EQ(id.raw_value, leaf.value) << leaf.xml;
      EXPECT_EQ(text, leaf.text) << leaf.xml;
      EXPECT_EQ(xml.token_offset(), 5u);
      EXPECT_EQ(xml.position(), 5 + leaf.xml.size()) << leaf.xml;
    }
  }
}

// skip_element and pass_element go over runs of leaves 64 bytes at a time: what follows a
// run of leaves of every length (so that leaves straddle the looks' edges) is found, and a
// malformed leaf deep inside one is still refused where it is.
TEST(XmlStream, RunsOfLeavesArePassedWholeAndCheckedInside) {
  std::string run;
  for (int i = 0; i < 300; ++i)
    run += "<d spc=\"t" + std::to_string(i) + "\">" +
           std::string(static_cast<size_t>(i % 50), '7') + "</d>";
  const std::string doc = "<r><b><d code=\"c\">" + run + "</d>\n<d code=\"c\">" + run +
                          "</d></b><after/><b>" + run + "</b></r>";
  XmlStream xml(doc);
  xml.next();  // <r>
  ASSERT_EQ(xml.next(), Token::kStart);
  xml.skip_element();  // <b> with two blocks of leaves
  ASSERT_EQ(xml.next(), Token::kStart);
  EXPECT_EQ(xml.name(), "after");
  EXPECT_EQ(xml.token_offset(), doc.find("<after/>"));
  xml.skip_element();
  ASSERT_EQ(xml.next(), Token::kStart);
  xml.pass_element();  // the last <b>
  EXPECT_EQ(xml.next(), Token::kEnd);
  EXPECT_EQ(xml.name(), "r");
  EXPECT_EQ(xml.next(), Token::kEndOfInput);

  // Leaf 200 of a run closed by </e>, or with '<' in its start tag: refused there.
  auto skip_error = [](const std::string& bad) -> std::pair<size_t, std::string> {
    XmlStream x(bad);
    x.next();
    x.next();
    try {
      x.skip_element();
    } catch (const XmlSyntaxError& e) {
      return {e.offset(), e.what()};
    }
    return {0, ""};
  };
  const std::string wrong_end = "<d spc=\"t200\">" + std::string(200 % 50, '7') + "</d>";
  std::string bad = doc;
  bad.replace(bad.find(wrong_end), wrong_end.size(), "<d spc=\"t200\">1</e>");
  const size_t at = bad.find("</e>");
  EXPECT_EQ(skip_error(bad), std::make_pair(at, std::string("</e> where </d> was expected")));
  bad = doc;
  bad.replace(bad.find(wrong_end), wrong_end.size(), "<d spc=\"t200\" <x>1</d>");
  EXPECT_EQ(skip_error(bad),
            std::make_pair(bad.find("<x>"), std::string("'<' inside the start tag <d>")));
  // Cut off inside the run: not closed, at every length of the cut.
  for (size_t cut = doc.find("<d spc=\"t100\">"); cut < doc.find("<d spc=\"t110\">"); ++cut)
    EXPECT_NE(skip_error(doc.substr(0, cut)).second, "") << cut;
}

// A stream over a window onto a document (PERI's ranges read in buffers of their own): offsets
// in and out are the document's, and after move_window the open elements' names are still
// known though the old window's bytes are gone.
TEST(XmlStream, AWindowKeepsTheDocumentsOffsetsAndTheOpenNames) {
  const std::string doc = "<r><block id=\"7\">12<x/>34</block><c>5</c></r>";
  const size_t from = doc.find("<block");
  std::string first = doc.substr(from, 20);
  XmlStream xml(first, from, from);
  ASSERT_EQ(xml.next(), Token::kStart);
  EXPECT_EQ(xml.name(), "block");
  EXPECT_EQ(xml.token_offset(), from);
  EXPECT_EQ(xml.attribute("id"), "7");
  ASSERT_EQ(xml.next(), Token::kText);
  EXPECT_EQ(xml.text(), "12");
  EXPECT_EQ(xml.position(), doc.find("<x/>"));
  EXPECT_EQ(xml.window_end(), from + 20);

  const size_t at = xml.position();
  const std::string second = doc.substr(at);
  xml.move_window(second, at);
  first.assign(first.size(), '#');  // the old window's bytes, names included, are gone
  std::vector<std::string> rest;
  for (Token t; (t = xml.next()) != Token::kEnd || xml.name() != "block";)
    rest.push_back(t == Token::kText ? std::string(xml.text()) : std::string(xml.name()));
  EXPECT_EQ(rest, (std::vector<std::string>{"x", "x", "34"}));
  EXPECT_EQ(xml.depth(), 0u);
  EXPECT_EQ(xml.next(), Token::kStart);
  EXPECT_EQ(xml.token_offset(), doc.find("<c>"));
  // Errors name document offsets: </r> closes nothing this stream opened.
  xml.next();
  xml.next();
  try {
    xml.next();
    ADD_FAILURE() << "</r> accepted";
  } catch (const XmlSyntaxError& e) {
    EXPECT_EQ(e.offset(), doc.find("</r>"));
  }
}

// pass_leaves stops at the first leaf that begins at or after `until` (a window's refill point).
TEST(XmlStream, PassingLeavesStopsAtAGivenOffset) {
  // (A leaf is looked at with the 64 bytes from it: a comment after the document gives them.)
  const std::string doc =
      "<r><d k=\"1\">1</d><d k=\"2\">2</d><d k=\"3\">3</d></r><!--" + std::string(64, ' ') + "-->";
  XmlStream xml(doc);
  xml.next();
  xml.pass_leaves("d", doc.find("<d k=\"2\"") - 1);
  EXPECT_EQ(xml.position(), doc.find("<d k=\"2\""));
  xml.pass_leaves("d", doc.find("<d k=\"2\""));
  EXPECT_EQ(xml.position(), doc.find("<d k=\"2\""));
  xml.pass_leaves("d");
  EXPECT_EQ(xml.position(), doc.find("</r>"));
}

TEST(XmlStream, ReadsOneElementFromItsStartTag) {
  const std::string doc = "<r><a/><data><d>1</d></data><z/></r>";
  XmlStream xml(doc, doc.find("<data>"));
  EXPECT_EQ(xml.next(), Token::kStart);
  EXPECT_EQ(xml.next(), Token::kStart);
  EXPECT_EQ(xml.next(), Token::kText);
  EXPECT_EQ(xml.next(), Token::kEnd);
  EXPECT_EQ(xml.next(), Token::kEnd);
  EXPECT_EQ(xml.name(), "data");
  EXPECT_EQ(xml.depth(), 0u);
}

TEST(XmlStream, NextTextElementReadsAnAnchorLeafInOneStep) {
  const std::string doc =
      "<r>\n <name>Master thread</name><rank>0</rank><type>a&amp;b</type><e/>"
      "<n a=\"1\">x</n><n >x</n><n>x<i/></n><n>x</m><!-- c --></r>";
  XmlStream xml(doc);
  xml.next();  // <r>
  std::string_view name, text;
  ASSERT_TRUE(xml.next_text_element(name, text));  // white space before it is passed too
  EXPECT_EQ(name, "name");
  EXPECT_EQ(text, "Master thread");
  EXPECT_EQ(xml.token_offset(), doc.find("<name>"));
  ASSERT_TRUE(xml.next_text_element(name, text));
  EXPECT_EQ(text, "0");
  ASSERT_TRUE(xml.next_text_element(name, text));
  EXPECT_EQ(text, "a&amp;b");  // raw, as next() gives text
  EXPECT_EQ(xml.depth(), 1u);
  // Other forms are left to next(), nothing consumed: empty, with an attribute, a space before
  // '>', an element inside, an end tag of another name.
  for (const char* other : {"<e/>", "<n a=", "<n >", "<n>x<i/>", "<n>x</m>"}) {
    const size_t before = xml.position();
    EXPECT_FALSE(xml.next_text_element(name, text)) << other;
    EXPECT_EQ(xml.position(), before);
    ASSERT_EQ(xml.next(), Token::kStart) << other;
    EXPECT_EQ(xml.token_offset(), doc.find(other));
    if (std::string_view(other) == "<n>x</m>") {
      EXPECT_EQ(xml.next(), Token::kText);
      EXPECT_THROW(xml.next(), XmlSyntaxError);  // </m> closes <n>: next() still says so
      break;
    }
    xml.skip_element();
  }
  XmlStream comment("<r><!-- c --></r>");
  comment.next();
  EXPECT_FALSE(comment.next_text_element(name, text));
  XmlStream cut("<r><name>x</name");
  cut.next();
  EXPECT_FALSE(cut.next_text_element(name, text));
}

TEST(XmlStream, MalformedDocumentsSayWhatAndWhere) {
  EXPECT_EQ(error_of("<a><b></a>"),
            std::make_pair(size_t{6}, std::string("</a> where </b> was expected")));
  EXPECT_EQ(error_of("<a>"), std::make_pair(size_t{3}, std::string("<a> is not closed")));
  EXPECT_EQ(error_of("<a x=1/>").second, "attribute 'x': its value must be quoted");
  EXPECT_EQ(error_of("<a x=\"1\"x=\"2\"/>").second, "white space expected before an attribute");
  EXPECT_EQ(error_of("<a x=\"1\" x=\"2\"/>").second, "attribute 'x' given twice");
  EXPECT_EQ(error_of("<a x=\"<\"/>"),
            std::make_pair(size_t{6}, std::string("'<' in the value of attribute 'x'")));
  EXPECT_EQ(error_of("<a><!-- x</a>").second, "comment not closed");
  EXPECT_EQ(error_of("</a>").second, "</a> closes no element");
  EXPECT_EQ(error_of("<a><!x></a>").second, "unknown markup after '<!'");
  EXPECT_EQ(error_of("<a>x<").second, "'<' at the end of the document");
  EXPECT_EQ(error_of("<a/ >").second, "'/' not followed by '>' in <a>");
}

TEST(XmlStream, UnescapesEntitiesAndCharacterReferences) {
  EXPECT_EQ(xml_unescape("a&lt;b&gt;&amp;&quot;&apos;&#65;&#x42;&#xE9;&#x20AC;&#x1F600;"),
            "a<b>&\"'AB\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  // As pugixml reads them: what is no reference stays as written.
  EXPECT_EQ(xml_unescape("R&D &nope; &#xZZ; &#; a & b &amp"), "R&D &nope; &#xZZ; &#; a & b &amp");
}

// XmlPull: an empty element is one token, values decoded, errors "where:line:column".
TEST(XmlPull, DecodedTokensAndPlacedErrors) {
  const std::string doc = "<a x=\"1&amp;2\"><b/>t&lt;<![CDATA[<c>]]></a>";
  XmlPull pull(doc, 0, doc.size(), "doc.xml");
  EXPECT_EQ(pull.next().kind, XmlToken::Kind::kStart);
  ASSERT_NE(pull.next().kind, XmlToken::Kind::kEof);  // <b/>
  EXPECT_EQ(pull.element_text(), "");
  EXPECT_EQ(pull.next().text, "t<");
  EXPECT_EQ(pull.next().text, "<c>");
  EXPECT_EQ(pull.next().kind, XmlToken::Kind::kEnd);
  EXPECT_EQ(pull.next().kind, XmlToken::Kind::kEof);
  XmlPull first(doc, 0, doc.size(), "doc.xml");
  EXPECT_EQ(*first.next().attribute("x"), "1&2");
  // next_child: a text-only element is one token whose text element_text gives; other
  // elements are tokens as from next().
  const std::string tree = "<l Id=\"0\">\n<name>R&amp;D</name>\n<attr k=\"v\"/><x><y/></x></l>";
  XmlPull children(tree, 0, tree.size(), "tree.xml");
  EXPECT_EQ(children.next().name, "l");
  const XmlToken& leaf = children.next_child();
  EXPECT_EQ(leaf.kind, XmlToken::Kind::kStart);
  EXPECT_EQ(leaf.name, "name");
  EXPECT_EQ(leaf.offset, tree.find("<name>"));
  EXPECT_EQ(children.element_text(), "R&D");
  EXPECT_EQ(children.next_child().kind, XmlToken::Kind::kText);  // "\n" before <attr/>
  EXPECT_EQ(*children.next_child().attribute("k"), "v");
  EXPECT_EQ(children.next_child().name, "x");
  children.skip_element();
  EXPECT_EQ(children.next_child().kind, XmlToken::Kind::kEnd);
  const std::string bad = "<a>\n  <b></c></a>";
  XmlPull broken(bad, 0, bad.size(), "bad.xml");
  try {
    for (;;) broken.next();
  } catch (const FormatError& e) {
    EXPECT_STREQ(e.what(), "bad.xml:2:6: malformed XML: </c> where </b> was expected");
  }
}

// element_text_view: an element read whole is a view into the document when it holds no
// reference, its decoded text otherwise; other elements give their text as element_text does.
TEST(XmlPull, ElementTextViewReadsWithoutCopying) {
  const std::string doc = "<l><name>Master</name><type>R&amp;D</type><n>a<i/>b</n><e/></l>";
  XmlPull pull(doc, 0, doc.size(), "doc.xml");
  pull.next();  // <l>
  pull.next_child();
  const std::string_view name = pull.element_text_view();
  EXPECT_EQ(name, "Master");
  EXPECT_EQ(name.data(), doc.data() + doc.find("Master"));  // not a copy
  pull.next_child();
  EXPECT_EQ(pull.element_text_view(), "R&D");
  EXPECT_EQ(pull.next_child().name, "n");  // not text only: read token by token
  EXPECT_EQ(pull.element_text_view(), "ab");
  EXPECT_TRUE(pull.next_child().self_closing);
  EXPECT_EQ(pull.element_text_view(), "");
  EXPECT_EQ(pull.next_child().kind, XmlToken::Kind::kEnd);
}

// release_read gives back what was read since the last release, once, and again what lies up to
// 4 MiB before it, down to where the reader began (a large folio is mapped whole when one of
// its pages is touched, the pages given back before too).
TEST(XmlPull, ReleaseReadGivesBackTheRangeRead) {
  const std::string doc = "<a><b>x</b><c/></a><d/>";
  std::vector<std::pair<size_t, size_t>> released;
  XmlPull pull(doc, 0, doc.size(), "doc.xml");
  pull.release_behind([&](size_t from, size_t to) { released.emplace_back(from, to); });
  pull.next();  // <a>
  pull.skip_element();
  pull.release_read();
  pull.release_read();  // nothing read since
  EXPECT_EQ(released, (std::vector<std::pair<size_t, size_t>>{{0, doc.find("<d/>")}}));
  pull.next();
  pull.release_read();
  ASSERT_EQ(released.size(), 2u);
  EXPECT_EQ(released[1], (std::pair<size_t, size_t>{0, doc.size()}));
  const std::string siblings = "<a/><b/><c/><d/>";
  XmlPull later(siblings, siblings.find("<c/>"), siblings.size(), "siblings.xml");
  later.release_behind([&](size_t from, size_t to) { released.emplace_back(from, to); });
  later.next();
  later.release_read();
  later.next();
  later.release_read();
  ASSERT_EQ(released.size(), 4u);
  EXPECT_EQ(released[3], (std::pair<size_t, size_t>{siblings.find("<c/>"), siblings.size()}))
      << "never before where the reader began";
}

// While it reads, the pull reader gives back what it passed every 4 MiB, in order and whole,
// each time with the 4 MiB before again: a huge anchor's readers then keep a few MiB of it
// resident, not the whole of it.
TEST(XmlPull, ReleasesWhatItPassedEveryFourMiB) {
  std::string doc = "<a>";
  while (doc.size() < (size_t{10} << 20)) doc += "<b>0123456789</b>";
  doc += "</a>";
  std::vector<std::pair<size_t, size_t>> released;
  XmlPull pull(doc, 0, doc.size(), "doc.xml");
  pull.release_behind([&](size_t from, size_t to) { released.emplace_back(from, to); });
  while (pull.next().kind != XmlToken::Kind::kEof) {
  }
  ASSERT_EQ(released.size(), 2u);
  EXPECT_EQ(released[0].first, 0u);
  EXPECT_EQ(released[1].first, released[0].second - (size_t{4} << 20));
  for (size_t k = 0; k < released.size(); ++k) {
    const size_t passed = released[k].second - (k == 0 ? 0 : released[k - 1].second);
    EXPECT_GE(passed, size_t{4} << 20);
    EXPECT_LT(passed, (size_t{4} << 20) + 32);  // stops at the first token past 4 MiB
  }
}

// The readers of the call tree, the system tree and its topologies give back the pages of
// their parts when done (about 4 MiB stay resident otherwise, per reader): the ranges
// released cover <program> and <system> whole.
TEST(AnchorReaders, GiveBackTheirPartsWhenDone) {
  test::AnchorSpec spec;
  spec.topologies = "<cart name=\"grid\" ndims=\"1\">\n<coord locId=\"0\">1</coord>\n</cart>\n";
  const std::string anchor = test::anchor_xml(spec);
  std::vector<std::pair<size_t, size_t>> released;
  std::mutex lock;  // the parts are read by several threads
  const Model model = parse_anchor(anchor, "anchor.xml", [&](size_t from, size_t to) {
    const std::lock_guard<std::mutex> guard(lock);
    released.emplace_back(from, to);
  });
  EXPECT_EQ(model.locations.size(), 2u);
  auto covered = [&](size_t from, size_t to) {
    std::vector<bool> in(to - from);
    for (const auto& [a, b] : released)
      for (size_t at = std::max(a, from); at < std::min(b, to); ++at) in[at - from] = true;
    return std::find(in.begin(), in.end(), false) == in.end();
  };
  const size_t program = anchor.find("<program>"), system = anchor.find("<system>");
  EXPECT_TRUE(covered(program, anchor.find("</program>") + 10));
  EXPECT_TRUE(covered(system, anchor.find("</system>") + 9));
}

}  // namespace
}  // namespace cubekit::format
