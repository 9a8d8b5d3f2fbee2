/*
 * Copyright 2026 The Pulse authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package dev.pulse.rules.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The subset of Go's text/template that Prometheus' alert templates use, with Prometheus' data: {@code $labels}
 * (the sample's labels, {@code __name__} included), {@code $externalLabels}, {@code $externalURL}, {@code $value},
 * and the same through {@code .Labels}, {@code .ExternalLabels}, {@code .ExternalURL}, {@code .Value}. Actions are
 * pipelines ({@code {{ $value | humanize }}}), function calls ({@code {{ printf "%.2f" $value }}}), field access on
 * the label maps ({@code {{ $labels.job }}}; a missing label prints as empty, Prometheus' {@code missingkey=zero}),
 * parenthesised pipelines, variable declarations, comments and the {@code {{-}}/{@code -}}} trim markers. The
 * functions are {@link #FUNCTIONS}. Control structures ({@code if}, {@code range}, {@code with}, {@code define},
 * {@code template}, {@code block}) and Prometheus' {@code query} function are refused at parse time with a message
 * naming them: a rule file that Pulse accepts never fails later on an unknown construct.
 *
 * <p>Bounded: a template source of at most {@link #MAX_SOURCE} characters, at most {@link #MAX_NODES} actions, and
 * an expansion of at most {@link #MAX_OUTPUT} characters (a longer one is an expansion error). There is no loop
 * construct, so the work is linear in the source and the output.
 */
public final class GoTemplate {

    public static final int MAX_SOURCE = 16_384;
    public static final int MAX_NODES = 1_000;
    public static final int MAX_OUTPUT = 65_536;
    public static final Set<String> FUNCTIONS = Set.of(
            "humanize",
            "humanize1024",
            "humanizeDuration",
            "humanizePercentage",
            "printf",
            "print",
            "toUpper",
            "toLower",
            "title",
            "stripPort");
    private static final Set<String> KEYWORDS =
            Set.of("if", "else", "end", "range", "with", "define", "template", "block", "break", "continue");
    private static final Set<String> PROMETHEUS_ONLY = Set.of(
            "query",
            "first",
            "label",
            "value",
            "strvalue",
            "sortByLabel",
            "args",
            "reReplaceAll",
            "match",
            "graphLink",
            "tableLink",
            "safeHtml",
            "pathPrefix",
            "externalURL",
            "humanizeTimestamp",
            "toTime",
            "parseDuration",
            "urlQueryEscape");

    /** What an expansion sees. */
    public record Data(
            Map<String, String> labels, Map<String, String> externalLabels, String externalUrl, double value) {}

    private sealed interface Node permits Text, Action {}

    private record Text(String text) implements Node {}

    /** {@code declare} is the variable it assigns ({@code $x := ...}), or null for an action that prints. */
    private record Action(String declare, Pipeline pipeline) implements Node {}

    private record Pipeline(List<Command> commands) {}

    private record Command(List<Operand> operands) {}

    private sealed interface Operand permits Literal, Variable, Field, Function, Sub {}

    private record Literal(Object value) implements Operand {}

    private record Variable(String name, List<String> fields) implements Operand {}

    private record Field(List<String> fields) implements Operand {}

    private record Function(String name) implements Operand {}

    private record Sub(Pipeline pipeline) implements Operand {}

    private final String name;
    private final List<Node> nodes;

    private GoTemplate(String name, List<Node> nodes) {
        this.name = name;
        this.nodes = nodes;
    }

    /** Parses {@code source}; {@code name} appears in messages (Prometheus names them {@code __alert_<alertname>}). */
    public static GoTemplate parse(String name, String source) throws TemplateException {
        if (source.length() > MAX_SOURCE) {
            throw new TemplateException(
                    "template: " + name + ": " + source.length() + " characters, at most " + MAX_SOURCE + " allowed");
        }
        return new Parser(name, source).parse();
    }

    /** Expands the template; an error (output too long, a function's refusal) is a {@link TemplateException}. */
    public String execute(Data data) throws TemplateException {
        Map<String, Object> vars = new HashMap<>();
        vars.put("labels", data.labels());
        vars.put("externalLabels", data.externalLabels());
        vars.put("externalURL", data.externalUrl());
        vars.put("value", data.value());
        StringBuilder out = new StringBuilder();
        for (Node n : nodes) {
            if (n instanceof Text t) {
                out.append(t.text());
            } else if (n instanceof Action a) {
                Object v = eval(a.pipeline(), vars, data);
                if (a.declare() != null) {
                    vars.put(a.declare(), v);
                } else {
                    out.append(Values.print(v));
                }
            }
            if (out.length() > MAX_OUTPUT) {
                throw new TemplateException(
                        "template: " + name + ": the expansion is longer than " + MAX_OUTPUT + " characters");
            }
        }
        return out.toString();
    }

    private Object eval(Pipeline p, Map<String, Object> vars, Data data) throws TemplateException {
        Object piped = null;
        boolean hasPiped = false;
        for (Command c : p.commands()) {
            Operand first = c.operands().get(0);
            if (first instanceof Function f) {
                List<Object> args = new ArrayList<>();
                for (int i = 1; i < c.operands().size(); i++) {
                    args.add(value(c.operands().get(i), vars, data));
                }
                if (hasPiped) {
                    args.add(piped);
                }
                piped = call(f.name(), args);
            } else {
                piped = value(first, vars, data);
            }
            hasPiped = true;
        }
        return piped;
    }

    private Object value(Operand o, Map<String, Object> vars, Data data) throws TemplateException {
        return switch (o) {
            case Literal l -> l.value();
            case Variable v -> fields(vars.get(v.name()), v.fields(), "$" + v.name());
            case Field f -> {
                Object root = switch (f.fields().get(0)) {
                    case "Labels" -> data.labels();
                    case "ExternalLabels" -> data.externalLabels();
                    case "ExternalURL" -> data.externalUrl();
                    case "Value" -> data.value();
                    default ->
                        throw new TemplateException("template: " + name + ": can't evaluate field "
                                + f.fields().get(0));
                };
                yield fields(
                        root,
                        f.fields().subList(1, f.fields().size()),
                        "." + f.fields().get(0));
            }
            case Sub s -> eval(s.pipeline(), vars, data);
            case Function fn -> call(fn.name(), List.of());
        };
    }

    private Object fields(Object root, List<String> fields, String what) throws TemplateException {
        Object v = root;
        for (String f : fields) {
            if (v instanceof Map<?, ?> m) {
                Object next = m.get(f);
                v = next == null ? "" : next;
            } else {
                throw new TemplateException("template: " + name + ": can't evaluate field " + f + " in " + what
                        + " of type " + GoFormat.typeName(v));
            }
        }
        return v;
    }

    private Object call(String fn, List<Object> args) throws TemplateException {
        switch (fn) {
            case "printf" -> {
                if (args.isEmpty() || !(args.get(0) instanceof String format)) {
                    throw new TemplateException("template: " + name + ": printf needs a format string first");
                }
                return GoFormat.printf(format, args.subList(1, args.size()));
            }
            case "print" -> {
                StringBuilder b = new StringBuilder();
                for (int i = 0; i < args.size(); i++) {
                    // Go's Sprint puts a space between operands when neither is a string.
                    if (i > 0 && !(args.get(i) instanceof String) && !(args.get(i - 1) instanceof String)) {
                        b.append(' ');
                    }
                    b.append(Values.print(args.get(i)));
                }
                return b.toString();
            }
            default -> {
                // every other function takes exactly one argument
            }
        }
        if (args.size() != 1) {
            throw new TemplateException(
                    "template: " + name + ": wrong number of args for " + fn + ": want 1 got " + args.size());
        }
        Object a = args.get(0);
        return switch (fn) {
            case "humanize" -> GoFormat.humanize(number(fn, a));
            case "humanize1024" -> GoFormat.humanize1024(number(fn, a));
            case "humanizeDuration" -> GoFormat.humanizeDuration(number(fn, a));
            case "humanizePercentage" -> GoFormat.humanizePercentage(number(fn, a));
            case "toUpper" -> string(fn, a).toUpperCase(Locale.ROOT);
            case "toLower" -> string(fn, a).toLowerCase(Locale.ROOT);
            case "title" -> title(string(fn, a));
            case "stripPort" -> stripPort(string(fn, a));
            default -> throw new TemplateException("template: " + name + ": function \"" + fn + "\" not defined");
        };
    }

    /** Prometheus' convertToFloat: a number, or a string that parses as one. */
    private double number(String fn, Object a) throws TemplateException {
        if (a instanceof Double d) {
            return d;
        }
        if (a instanceof String s) {
            try {
                return switch (s) {
                    case "+Inf", "Inf", "inf", "+inf" -> Double.POSITIVE_INFINITY;
                    case "-Inf", "-inf" -> Double.NEGATIVE_INFINITY;
                    case "NaN", "nan" -> Double.NaN;
                    default -> Double.parseDouble(s.trim().equals(s) ? s : "x");
                };
            } catch (NumberFormatException e) {
                throw new TemplateException("template: " + name + ": error calling " + fn + ": strconv.ParseFloat: "
                        + "parsing " + GoFormat.quote(s) + ": invalid syntax");
            }
        }
        throw new TemplateException("template: " + name + ": error calling " + fn + ": can't convert "
                + GoFormat.typeName(a) + " to float");
    }

    private String string(String fn, Object a) throws TemplateException {
        if (a instanceof String s) {
            return s;
        }
        throw new TemplateException("template: " + name + ": wrong type for value; expected string; got "
                + GoFormat.typeName(a) + " (in " + fn + ")");
    }

    private static String title(String s) {
        StringBuilder b = new StringBuilder(s.length());
        boolean start = true;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(start ? Character.toTitleCase(c) : c);
            start = !Character.isLetterOrDigit(c) && c != '_' && c != '\'';
        }
        return b.toString();
    }

    private static String stripPort(String hostPort) {
        if (hostPort.startsWith("[")) {
            int end = hostPort.indexOf(']');
            return end > 0 ? hostPort.substring(1, end) : hostPort;
        }
        int colon = hostPort.lastIndexOf(':');
        return colon < 0 || hostPort.indexOf(':') != colon ? hostPort : hostPort.substring(0, colon);
    }

    // --- parsing ------------------------------------------------------------------------------------------------

    private static final class Parser {
        private final String name;
        private final String src;
        private final Set<String> declared = new HashSet<>(Set.of("labels", "externalLabels", "externalURL", "value"));
        private String action;
        private int pos;
        private int line = 1;

        Parser(String name, String src) {
            this.name = name;
            this.src = src;
        }

        private TemplateException error(String message) {
            return new TemplateException("template: " + name + ":" + line + ": " + message);
        }

        GoTemplate parse() throws TemplateException {
            List<Node> nodes = new ArrayList<>();
            int i = 0;
            int actions = 0;
            while (i < src.length()) {
                int open = src.indexOf("{{", i);
                if (open < 0) {
                    nodes.add(new Text(src.substring(i)));
                    break;
                }
                String text = src.substring(i, open);
                int start = open + 2;
                boolean trimLeft =
                        start + 1 < src.length() && src.charAt(start) == '-' && isSpace(src.charAt(start + 1));
                if (trimLeft) {
                    text = text.stripTrailing();
                    start += 2;
                }
                if (!text.isEmpty()) {
                    nodes.add(new Text(text));
                }
                line += count(src.substring(i, open), '\n');
                int close = findClose(start);
                if (close < 0) {
                    throw error("unclosed action");
                }
                boolean trimRight =
                        close - 2 >= start && src.charAt(close - 1) == '-' && isSpace(src.charAt(close - 2));
                String body =
                        src.substring(start, trimRight ? close - 1 : close).strip();
                i = close + 2;
                if (trimRight) {
                    while (i < src.length() && isSpace(src.charAt(i))) {
                        i++;
                    }
                }
                if (++actions > MAX_NODES) {
                    throw error("more than " + MAX_NODES + " actions");
                }
                if (body.startsWith("/*")) {
                    if (!body.endsWith("*/")) {
                        throw error("unclosed comment");
                    }
                    continue;
                }
                nodes.add(parseAction(body));
                line += count(src.substring(start, close), '\n');
            }
            return new GoTemplate(name, List.copyOf(nodes));
        }

        private static int count(String s, char c) {
            int n = 0;
            for (int k = 0; k < s.length(); k++) {
                if (s.charAt(k) == c) {
                    n++;
                }
            }
            return n;
        }

        private static boolean isSpace(char c) {
            return c == ' ' || c == '\t' || c == '\n' || c == '\r';
        }

        /** The index of the {@code }}} closing the action starting at {@code from}, skipping quoted strings. */
        private int findClose(int from) throws TemplateException {
            int k = from;
            while (k < src.length()) {
                char c = src.charAt(k);
                if (c == '"' || c == '`') {
                    int end = k + 1;
                    while (end < src.length() && src.charAt(end) != c) {
                        if (c == '"' && src.charAt(end) == '\\') {
                            end++;
                        }
                        if (c == '"' && end < src.length() && src.charAt(end) == '\n') {
                            throw error("unterminated quoted string");
                        }
                        end++;
                    }
                    if (end >= src.length()) {
                        throw error("unterminated quoted string");
                    }
                    k = end + 1;
                    continue;
                }
                if (c == '}' && k + 1 < src.length() && src.charAt(k + 1) == '}') {
                    return k;
                }
                k++;
            }
            return -1;
        }

        private Action parseAction(String body) throws TemplateException {
            if (body.isEmpty()) {
                throw error("missing value for command");
            }
            action = body;
            pos = 0;
            String word = peekWord();
            if (KEYWORDS.contains(word)) {
                throw error("{{" + word + "}} is not supported by Pulse's templates (supported: values, pipelines and"
                        + " the functions " + new java.util.TreeSet<>(FUNCTIONS) + ")");
            }
            String declare = null;
            skipSpace();
            if (pos < action.length() && action.charAt(pos) == '$') {
                int save = pos;
                pos++;
                String var = ident();
                skipSpace();
                if (action.startsWith(":=", pos) || (action.startsWith("=", pos) && !action.startsWith("==", pos))) {
                    if (action.charAt(pos) == '=' && !declared.contains(var)) {
                        throw error("undefined variable \"$" + var + "\"");
                    }
                    pos += action.charAt(pos) == ':' ? 2 : 1;
                    declare = var;
                } else {
                    pos = save;
                }
            }
            Pipeline p = pipeline(false);
            if (declare != null) {
                declared.add(declare);
            }
            skipSpace();
            if (pos < action.length()) {
                throw error("unexpected \"" + action.charAt(pos) + "\" in command");
            }
            return new Action(declare, p);
        }

        private String peekWord() {
            int k = 0;
            while (k < action.length() && (Character.isLetterOrDigit(action.charAt(k)) || action.charAt(k) == '_')) {
                k++;
            }
            return action.substring(0, k);
        }

        private void skipSpace() {
            while (pos < action.length() && isSpace(action.charAt(pos))) {
                pos++;
            }
        }

        private Pipeline pipeline(boolean inParens) throws TemplateException {
            List<Command> commands = new ArrayList<>();
            while (true) {
                commands.add(command(inParens, !commands.isEmpty()));
                skipSpace();
                if (pos < action.length() && action.charAt(pos) == '|') {
                    pos++;
                    continue;
                }
                return new Pipeline(List.copyOf(commands));
            }
        }

        private Command command(boolean inParens, boolean piped) throws TemplateException {
            List<Operand> ops = new ArrayList<>();
            while (true) {
                skipSpace();
                if (pos >= action.length() || action.charAt(pos) == '|' || (inParens && action.charAt(pos) == ')')) {
                    break;
                }
                ops.add(operand());
            }
            if (ops.isEmpty()) {
                throw error("missing value for command");
            }
            if (!(ops.get(0) instanceof Function) && (ops.size() > 1 || piped)) {
                throw error(
                        ops.size() > 1
                                ? "can't give argument to non-function " + describe(ops.get(0))
                                : "non executable command in pipeline stage 2");
            }
            return new Command(List.copyOf(ops));
        }

        private static String describe(Operand o) {
            return switch (o) {
                case Variable v -> "$" + v.name();
                case Literal l -> Values.print(l.value());
                default -> o.toString();
            };
        }

        private Operand operand() throws TemplateException {
            char c = action.charAt(pos);
            if (c == '"') {
                return new Literal(quoted());
            }
            if (c == '`') {
                int end = action.indexOf('`', pos + 1);
                String s = action.substring(pos + 1, end);
                pos = end + 1;
                return new Literal(s);
            }
            if (c == '(') {
                pos++;
                Pipeline p = pipeline(true);
                skipSpace();
                if (pos >= action.length() || action.charAt(pos) != ')') {
                    throw error("unclosed left paren");
                }
                pos++;
                return new Sub(p);
            }
            if (c == '$') {
                pos++;
                String var = ident();
                if (!declared.contains(var)) {
                    throw error("undefined variable \"$" + var + "\"");
                }
                return new Variable(var, fieldChain());
            }
            if (c == '.') {
                List<String> chain = fieldChain();
                if (chain.isEmpty()) {
                    throw error("the dot alone ({{ . }}) is not supported by Pulse's templates");
                }
                return new Field(chain);
            }
            if (c == '-' || c == '+' || Character.isDigit(c)) {
                int start = pos;
                pos++;
                while ((pos < action.length()
                                && "0123456789.eExX_abcdefABCDEF+-".indexOf(action.charAt(pos)) >= 0
                                && !(action.charAt(pos) == '-' || action.charAt(pos) == '+'))
                        || (pos < action.length()
                                && (action.charAt(pos) == '-' || action.charAt(pos) == '+')
                                && (action.charAt(pos - 1) == 'e' || action.charAt(pos - 1) == 'E'))) {
                    pos++;
                }
                String num = action.substring(start, pos);
                try {
                    return new Literal(Double.parseDouble(num.replace("_", "")));
                } catch (NumberFormatException e) {
                    throw error("bad number syntax: \"" + num + "\"");
                }
            }
            if (Character.isLetter(c) || c == '_') {
                String word = ident();
                switch (word) {
                    case "true", "false" -> throw error("booleans are not supported by Pulse's templates");
                    case "nil" -> throw error("nil is not a command");
                    default -> {
                        // a function
                    }
                }
                if (PROMETHEUS_ONLY.contains(word)) {
                    throw error("the function \"" + word + "\" is not supported by Pulse's templates (supported: "
                            + new java.util.TreeSet<>(FUNCTIONS) + ")");
                }
                if (!FUNCTIONS.contains(word)) {
                    throw error("function \"" + word + "\" not defined");
                }
                return new Function(word);
            }
            throw error("unexpected \"" + c + "\" in operand");
        }

        private String ident() throws TemplateException {
            int start = pos;
            while (pos < action.length()
                    && (Character.isLetterOrDigit(action.charAt(pos)) || action.charAt(pos) == '_')) {
                pos++;
            }
            if (pos == start) {
                throw error("bad character in identifier");
            }
            return action.substring(start, pos);
        }

        private List<String> fieldChain() throws TemplateException {
            List<String> chain = new ArrayList<>();
            while (pos < action.length() && action.charAt(pos) == '.') {
                pos++;
                if (pos >= action.length()
                        || isSpace(action.charAt(pos))
                        || action.charAt(pos) == '|'
                        || action.charAt(pos) == ')') {
                    break;
                }
                chain.add(ident());
            }
            return chain;
        }

        private String quoted() throws TemplateException {
            StringBuilder b = new StringBuilder();
            pos++;
            while (pos < action.length() && action.charAt(pos) != '"') {
                char c = action.charAt(pos++);
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (pos >= action.length()) {
                    throw error("unterminated quoted string");
                }
                char e = action.charAt(pos++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case '"' -> b.append('"');
                    case '\\' -> b.append('\\');
                    default -> throw error("invalid syntax in quoted string: \\" + e);
                }
            }
            if (pos >= action.length()) {
                throw error("unterminated quoted string");
            }
            pos++;
            return b.toString();
        }
    }
}
