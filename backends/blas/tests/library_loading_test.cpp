// Loading BLAS libraries by name and by path, what each one says about itself, and the errors
// when a library cannot be used.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "blas_test_support.hpp"
#include "fprev/blas/library.hpp"

namespace fprev::blas {
namespace {

std::shared_ptr<Library> load_or_skip(const std::string& spec) {
  try {
    return Library::load(spec);
  } catch (const BackendUnavailable& e) {
    if (spec == "openblas") throw;
    return nullptr;
  }
}

#define LOAD_OR_SKIP(var, spec)                                               \
  auto var = load_or_skip(spec);                                              \
  if (!var) GTEST_SKIP() << spec << " is not installed here"

bool is_version(const std::string& text) {
  return std::regex_match(text, std::regex(R"(\d+\.\d+(\.\d+)*)"));
}

TEST(BlasLibrary, LoadsOpenBlasByNameAndSaysWhatItIs) {
  auto library = Library::load("openblas");
  EXPECT_EQ(library->vendor(), Vendor::openblas);
  EXPECT_EQ(library->name(), "OpenBLAS");
  EXPECT_TRUE(is_version(library->version())) << library->version();
  // Debian names the file after the release (libopenblasp-r0.3.21.so): an independent witness.
  EXPECT_NE(library->path().find(library->version()), std::string::npos) << library->path();
  EXPECT_EQ(library->configuration().rfind("OpenBLAS " + library->version(), 0), 0u)
      << library->configuration();
  ASSERT_TRUE(library->details().count("core"));
  EXPECT_FALSE(library->details().at("core").empty());
  // The core name is part of the build configuration string OpenBLAS reports.
  EXPECT_NE(library->configuration().find(library->details().at("core")), std::string::npos);
  EXPECT_TRUE(std::filesystem::path(library->path()).is_absolute());
  EXPECT_FALSE(std::filesystem::is_symlink(library->path()));
  EXPECT_TRUE(library->missing_symbols().empty());
  EXPECT_TRUE(library->can_set_threads());
}

TEST(BlasLibrary, LoadsBlisByName) {
  LOAD_OR_SKIP(library, "blis");
  EXPECT_EQ(library->vendor(), Vendor::blis);
  EXPECT_EQ(library->name(), "BLIS");
  EXPECT_TRUE(is_version(library->version())) << library->version();
  ASSERT_TRUE(library->details().count("arch"));
  EXPECT_NE(library->details().at("arch"), "unknown");
  EXPECT_NE(library->configuration().find("arch " + library->details().at("arch")),
            std::string::npos);
  EXPECT_TRUE(library->missing_symbols().empty());
  EXPECT_TRUE(library->can_set_threads());
}

TEST(BlasLibrary, NetlibIsTheReferenceBlasNotTheAlternativesLink) {
  LOAD_OR_SKIP(library, "netlib");
  EXPECT_EQ(library->vendor(), Vendor::other);
  EXPECT_EQ(library->name(), "netlib reference BLAS");
  // Debian's reference BLAS lives in a blas/ subdirectory; libblas.so.3 itself may be OpenBLAS.
  EXPECT_EQ(std::filesystem::path(library->path()).parent_path().filename(), "blas");
  // It reports nothing about itself: the file identifies it.
  EXPECT_EQ(library->details().at("file_size"),
            std::to_string(std::filesystem::file_size(library->path())));
  EXPECT_TRUE(std::regex_match(library->details().at("fnv1a64"), std::regex("[0-9a-f]{16}")));
  EXPECT_EQ(library->details().at("version_source"), "file name");
  EXPECT_NE(library->path().find(".so." + library->version()), std::string::npos);
  EXPECT_FALSE(library->can_set_threads());
  EXPECT_FALSE(library->threads().has_value());
}

TEST(BlasLibrary, LoadingByAbsolutePathFindsTheSameLibrary) {
  for (const std::string name : {"openblas", "blis", "netlib"}) {
    auto by_name = load_or_skip(name);
    if (!by_name) continue;
    auto by_path = Library::load(by_name->path());
    EXPECT_EQ(by_path->path(), by_name->path());
    EXPECT_EQ(by_path->vendor(), by_name->vendor());
    EXPECT_EQ(by_path->version(), by_name->version());
    EXPECT_NE(by_path->single().dot, nullptr);
    // The same file is the same loaded object: the kernels are the same functions.
    EXPECT_EQ(by_path->single().gemm, by_name->single().gemm) << name;
  }
}

TEST(BlasLibrary, TwoLibrariesLiveSideBySide) {
  auto openblas = Library::load("openblas");
  LOAD_OR_SKIP(netlib, "netlib");
  EXPECT_NE(openblas->path(), netlib->path());
  EXPECT_NE(openblas->single().dot, netlib->single().dot);
  const int n = 3, one = 1;
  const float x[] = {1, 2, 3}, y[] = {4, 5, 6};
  EXPECT_EQ(openblas->single().dot(&n, x, &one, y, &one), 32.0f);
  EXPECT_EQ(netlib->single().dot(&n, x, &one, y, &one), 32.0f);
}

TEST(BlasLibrary, ToyLibraryByPathLacksTheDoubleRoutines) {
  auto toy = Library::load(testing::toy_library());
  EXPECT_EQ(toy->vendor(), Vendor::other);
  EXPECT_EQ(toy->missing_symbols(), (std::vector<std::string>{"ddot_", "dgemv_", "dgemm_"}));
  EXPECT_EQ(toy->details().at("missing_symbols"), "ddot_, dgemv_, dgemm_");
  EXPECT_NE(toy->single().dot, nullptr);
  EXPECT_EQ(toy->dbl().dot, nullptr);
  EXPECT_EQ(toy->name().rfind("BLAS ", 0), 0u) << toy->name();
  EXPECT_EQ(toy->details().at("version_source"), "none");
}

// A path is named on purpose: when it does not work that is an error (unusable), never the skip
// an optional library that is not installed gets (not_installed).
TEST(BlasLibrary, MissingLibraryIsUnusableWithTheReason) {
  try {
    Library::load("/nonexistent/dir/libnothing.so");
    FAIL() << "loaded a library that does not exist";
  } catch (const BackendUnavailable& e) {
    EXPECT_EQ(e.reason(), Unavailability::unusable);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/libnothing.so"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
  }
}

TEST(BlasLibrary, FileThatIsNotALibraryIsUnavailableWithTheLoadersMessage) {
  const auto path = std::filesystem::temp_directory_path() / "fprev_blas_not_a_library.so";
  { std::ofstream(path) << "not an ELF file\n"; }
  try {
    Library::load(path.string());
    FAIL() << "loaded a text file";
  } catch (const BackendUnavailable& e) {
    EXPECT_EQ(e.reason(), Unavailability::unusable);
    const std::string message = e.what();
    EXPECT_NE(message.find("cannot use BLAS library '" + path.string() + "'"), std::string::npos)
        << message;
  }
  std::filesystem::remove(path);
}

TEST(BlasLibrary, LibraryWithoutBlasSymbolsIsRejected) {
  // The C library is a shared library but no BLAS.
  const std::string libc_dir = [] {
    for (const auto& dir : linker_search_directories())
      if (std::filesystem::exists(dir + "/libc.so.6")) return dir;
    return std::string();
  }();
  if (libc_dir.empty()) GTEST_SKIP() << "no libc.so.6 in the linker directories";
  try {
    Library::load(libc_dir + "/libc.so.6");
    FAIL() << "accepted the C library as a BLAS";
  } catch (const BackendUnavailable& e) {
    EXPECT_EQ(e.reason(), Unavailability::unusable);
    EXPECT_NE(std::string(e.what()).find("not a BLAS"), std::string::npos) << e.what();
  }
}

TEST(BlasLibrary, MalformedSpecsAreConfigurationErrorsListingTheChoices) {
  for (const std::string spec : {"", "mkl", "libopenblas.so.0", "relative/lib.so"}) {
    try {
      Library::load(spec);
      FAIL() << "accepted '" << spec << "'";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.parameter(), "library");
      EXPECT_NE(std::string(e.what()).find("openblas, blis, netlib, atlas or an absolute path"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(BlasLibrary, NamesResolveToTheirDebianSonames) {
  EXPECT_EQ(library_candidates("openblas").front(), "libopenblas.so.0");
  EXPECT_EQ(library_candidates("blis").front(), "libblis.so.4");
  const auto netlib = library_candidates("netlib");
  ASSERT_FALSE(netlib.empty());
  for (std::size_t i = 0; i + 1 < netlib.size(); ++i)
    EXPECT_TRUE(netlib[i].ends_with("/blas/libblas.so.3")) << netlib[i];
  EXPECT_EQ(netlib.back(), "libblas.so.3");
  EXPECT_TRUE(library_candidates("unknown").empty());
  EXPECT_FALSE(linker_search_directories().empty());
}

TEST(BlasLibrary, ThreadsAreSetThroughTheLibrarysApi) {
  for (const std::string name : {"openblas", "blis"}) {
    auto library = load_or_skip(name);
    if (!library) continue;
    EXPECT_EQ(library->use_threads(2), 2) << name;
    EXPECT_EQ(library->threads(), 2) << name;
    EXPECT_EQ(library->use_threads(1), 1) << name;
    EXPECT_EQ(library->threads(), 1) << name;
  }
}

}  // namespace
}  // namespace fprev::blas
