// The command line of fprev-golden (CLI11): the sub-commands, their options and generated help.
#pragma once

#include <string>
#include <vector>

namespace fprev::cli {

// Parses `arguments` (argv without the program name; `program` is argv[0]) and runs the chosen
// sub-command. Returns the exit status. Prints help and the version itself. A usage error found
// while parsing, or any error of the sub-command, is thrown for main's handler; `command` names
// the sub-command as soon as it is known, for that handler's message.
int run_command_line(const std::string& program, std::vector<std::string> arguments,
                     std::string& command);

// The names of the sub-commands, in the order the help lists them.
const std::vector<std::string>& command_names();

}  // namespace fprev::cli
