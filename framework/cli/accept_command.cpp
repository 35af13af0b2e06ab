#include "accept_command.hpp"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "fprev/backend.hpp"
#include "selection.hpp"

namespace fprev::cli {
namespace {

// The FPREV_<BACKEND>_<SETTING> variables set now for `backend`, as VAR=value words: the same
// names apply_environment_overrides() reads.
std::vector<std::string> environment_overrides(const Backend& backend) {
  std::vector<std::string> words;
  for (const ParamSpec& spec : backend.instance_params()) {
    std::string variable = "FPREV_" + std::string(backend.name()) + "_" + spec.name;
    for (char& c : variable) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (const char* value = std::getenv(variable.c_str()); value != nullptr && *value != '\0')
      words.push_back(variable + "=" + shell_quote(value));
  }
  return words;
}

}  // namespace

AcceptCommand::AcceptCommand(std::string program, std::vector<std::string> selection_arguments)
    : program_(std::move(program)), selection_arguments_(std::move(selection_arguments)) {}

std::string AcceptCommand::for_case(const Suite& suite, const SuiteCase& c) const {
  std::string command;
  // Where backend modules were found (a project's own backend; fprev/backend_module.hpp).
  if (const char* path = std::getenv("FPREV_BACKEND_PATH"); path != nullptr && *path != '\0')
    command += "FPREV_BACKEND_PATH=" + shell_quote(path) + " ";
  if (const BackendInstanceSpec* instance = suite.find_backend(c.backend_instance))
    if (const Backend* backend = builtin_backends().find(instance->use))
      for (const auto& assignment : environment_overrides(*backend)) command += assignment + " ";
  command += shell_quote(program_) + " update";
  for (const auto& argument : selection_arguments_) command += " " + shell_quote(argument);
  command += " --suite " + shell_quote(suite.name) + " --backend " + shell_quote(c.backend_instance) +
             " --case " + shell_quote(c.id);
  // An opt-in case (long) is left out of update unless named.
  for (const std::string& label : opt_in_labels_of(c)) command += " --label " + shell_quote(label);
  return command;
}

std::string AcceptCommand::for_whole_suite(const std::string& case_command) {
  // for_case() ends with " --backend <b> --case <c> [--label long]", and instance names and case
  // ids are file-name safe, so the last " --backend " starts that tail (the suite's long cases stay
  // opt-in).
  const std::size_t tail = case_command.rfind(" --backend ");
  return tail == std::string::npos ? case_command : case_command.substr(0, tail);
}

std::string shell_quote(std::string_view word) {
  const auto safe = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
           std::string_view("_-./:@%+,").find(c) != std::string_view::npos;
  };
  bool plain = !word.empty();
  for (char c : word) plain = plain && safe(c);
  if (plain) return std::string(word);
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string program_as_invoked(std::string_view argv0) {
  return argv0.find('/') != std::string_view::npos ? std::string(argv0) : "fprev-golden";
}

std::string running_executable(std::string_view fallback) {
  std::error_code error;
  const auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (!error && path.is_absolute()) return path.string();
  return std::filesystem::absolute(std::filesystem::path(fallback), error).string();
}

}  // namespace fprev::cli
