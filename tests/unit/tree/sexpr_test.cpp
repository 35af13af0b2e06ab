// S-expression printing and strict parsing.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "fprev/sexpr.hpp"
#include "fprev/tree.hpp"
#include "random_trees.hpp"

namespace fprev {
namespace {

TEST(Sexpr, PrintsTheDesignExamples) {
  TreeBuilder pairs(4);
  pairs.add_node({pairs.add_node({0, 1}), pairs.add_node({2, 3})});
  EXPECT_EQ(to_sexpr(pairs.build()), "((0 1) (2 3))");

  TreeBuilder fused(6);
  fused.add_node({4, fused.add_node({3, 2, 1, 0}), 5});
  EXPECT_EQ(to_sexpr(fused.build()), "((0 1 2 3) 4 5)");

  EXPECT_EQ(to_sexpr(TreeBuilder(1).build()), "0");

  TreeBuilder wide(12);
  wide.add_node({wide.add_node({11, 10}), wide.add_node({0, 1, 2, 3, 4, 5, 6, 7, 8, 9})});
  EXPECT_EQ(to_sexpr(wide.build()), "((0 1 2 3 4 5 6 7 8 9) (10 11))");
}

TEST(Sexpr, ParsesToTheCanonicalTree) {
  TreeBuilder builder(4);
  builder.add_node({builder.add_node({0, 1}), builder.add_node({2, 3})});
  const Tree expected = builder.build();
  EXPECT_TRUE(parse_sexpr("((0 1) (2 3))") == expected);
  EXPECT_TRUE(parse_sexpr("((3 2) (1 0))") == expected);
  EXPECT_TRUE(parse_sexpr("((2 3) (0 1))") == expected);
  EXPECT_EQ(to_sexpr(parse_sexpr("(5 (3 1 4) (2 0))")), "((0 2) (1 3 4) 5)");
  EXPECT_EQ(to_sexpr(parse_sexpr("0")), "0");
  EXPECT_EQ(parse_sexpr("0").leaf_count(), 1u);
}

// Prints `tree` with the children of every node in a random order (iteratively).
std::string shuffled_sexpr(const Tree& tree, std::mt19937_64& rng) {
  std::string out;
  struct Frame {
    std::vector<NodeId> kids;
    std::size_t next;
  };
  auto open = [&](NodeId node) {
    auto span = tree.children(node);
    Frame frame{std::vector<NodeId>(span.begin(), span.end()), 0};
    std::shuffle(frame.kids.begin(), frame.kids.end(), rng);
    return frame;
  };
  if (tree.is_leaf(tree.root())) return std::to_string(tree.root());
  std::vector<Frame> stack{open(tree.root())};
  out += '(';
  while (!stack.empty()) {
    if (stack.back().next == stack.back().kids.size()) {
      out += ')';
      stack.pop_back();
      continue;
    }
    if (stack.back().next > 0) out += ' ';
    const NodeId child = stack.back().kids[stack.back().next++];
    if (tree.is_leaf(child)) {
      out += std::to_string(child);
    } else {
      out += '(';
      stack.push_back(open(child));
    }
  }
  return out;
}

TEST(Sexpr, RoundTripsRandomTrees) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    const std::size_t n = 1 + rng() % 400;
    const Tree tree = round % 2 == 0 ? random_binary_tree(n, rng) : random_multiway_tree(n, 9, rng);
    const std::string text = to_sexpr(tree);
    const Tree parsed = parse_sexpr(text);
    ASSERT_TRUE(parsed == tree) << text;
    ASSERT_EQ(to_sexpr(parsed), text);
    const std::string shuffled = shuffled_sexpr(tree, rng);
    ASSERT_TRUE(parse_sexpr(shuffled) == tree) << shuffled << "\nvs\n" << text;
  }
}

TEST(Sexpr, CanonicalTextListsChildrenBySmallestLeaf) {
  // Read back from the text alone: in every node, each child's smallest leaf is written first in
  // that child, and the children's smallest leaves increase from left to right.
  std::mt19937_64 rng(12);
  for (int round = 0; round < 50; ++round) {
    const Tree tree = random_multiway_tree(2 + rng() % 200, 4, rng);
    const std::string text = to_sexpr(tree);
    struct Open {
      std::vector<long> child_minima;
      long first_leaf = -1;
    };
    std::vector<Open> stack;
    auto finish_child = [&](long minimum, long first_leaf) {
      ASSERT_EQ(minimum, first_leaf) << text;
      if (stack.empty()) return;
      if (stack.back().first_leaf < 0) stack.back().first_leaf = first_leaf;
      stack.back().child_minima.push_back(minimum);
    };
    for (std::size_t p = 0; p < text.size();) {
      if (text[p] == '(') {
        stack.emplace_back();
        ++p;
      } else if (text[p] == ')') {
        const Open done = stack.back();
        stack.pop_back();
        ASSERT_GE(done.child_minima.size(), 2u) << text;
        EXPECT_TRUE(std::is_sorted(done.child_minima.begin(), done.child_minima.end())) << text;
        finish_child(*std::min_element(done.child_minima.begin(), done.child_minima.end()),
                     done.first_leaf);
        ++p;
      } else if (text[p] == ' ') {
        ++p;
      } else {
        std::size_t end = p;
        while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
        ASSERT_GT(end, p) << text;
        const long leaf = std::stol(text.substr(p, end - p));
        finish_child(leaf, leaf);
        p = end;
      }
    }
  }
}

struct Malformed {
  const char* text;
  std::size_t position;
  const char* says;  // a fragment the message must contain
};

class SexprMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(SexprMalformed, IsRejectedAtTheOffendingCharacter) {
  const Malformed& c = GetParam();
  try {
    parse_sexpr(c.text);
    FAIL() << "accepted \"" << c.text << "\"";
  } catch (const SexprError& e) {
    EXPECT_EQ(e.position(), c.position) << "\"" << c.text << "\": " << e.what();
    EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos)
        << "\"" << c.text << "\": " << e.what();
    EXPECT_NE(std::string(e.what()).find("position " + std::to_string(c.position)),
              std::string::npos)
        << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Sexpr, SexprMalformed,
    ::testing::Values(
        Malformed{"(0 1", 4, "expected ' ' or ')' but found the end"},
        Malformed{"(0  1)", 3, "expected a leaf index or '(' but found ' '"},
        Malformed{"(0 1))", 5, "expected the end of the text"},
        Malformed{"(01 2)", 2, "leading zeros"},
        Malformed{"(0 0)", 3, "leaf 0 appears twice (first at position 1)"},
        Malformed{"(0 2)", 3, "leaf index 2 is out of range"},
        Malformed{"(0)", 2, "at least two children"},
        Malformed{" (0 1)", 0, "expected a leaf index or '(' but found ' '"},
        Malformed{"(0 1) ", 5, "expected the end of the text"},
        Malformed{"((0 1) x)", 7, "expected a leaf index or '(' but found 'x'"},
        Malformed{"", 0, "found the end of the text"},
        Malformed{"01", 1, "leading zeros"},
        Malformed{"()", 1, "expected a leaf index or '(' but found ')'"},
        Malformed{"(", 1, "found the end of the text"},
        Malformed{"(0 1 )", 5, "expected a leaf index or '('"},
        Malformed{"(0\t1)", 2, "byte 0x09"},
        Malformed{"(-1 0)", 1, "found '-'"},
        Malformed{"((0 1) (2 3)", 12, "1 '(' not closed"},
        Malformed{"(0 1)(2 3)", 5, "expected the end of the text"},
        Malformed{"1", 0, "leaf index 1 is out of range"},
        Malformed{"(1 2)", 3, "indices must be 0..1"},
        Malformed{"(0 1 1)", 5, "leaf 1 appears twice"},
        Malformed{"(0 (1))", 5, "at least two children"},
        Malformed{"(0 123456789012345678901234567890)", 3,
                  "leaf index 123456789012345678901234567890 is out of range"},
        Malformed{"(0 1)\n", 5, "byte 0x0a"},
        Malformed{"((0 1) (2 3) (4 5)", 18, "expected ' ' or ')'"}),
    // Stable test names (the default prints the parameter's bytes, pointers included).
    [](const ::testing::TestParamInfo<Malformed>& param) { return "case" + std::to_string(param.index); });

}  // namespace
}  // namespace fprev
