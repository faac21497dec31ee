// json_check.c: checks a JSON document (test driver for cost.cli):
//   cost_json_check FILE PATH=TYPE... where PATH is key, key.key or
//   key[i].key and TYPE is number, string, array, object, bool or a literal
//   value (a number or a string) the field must equal.
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *find(json_t *v, const char *path) {
  char buf[256];
  snprintf(buf, sizeof buf, "%s", path);
  for (char *part = strtok(buf, "."); part && v; part = strtok(NULL, ".")) {
    char *bracket = strchr(part, '[');
    if (bracket) *bracket = '\0';
    v = json_object_get(v, part);
    if (bracket && v) v = json_array_get(v, (size_t)atoi(bracket + 1));
  }
  return v;
}

static int matches(json_t *v, const char *want) {
  if (strcmp(want, "number") == 0) return json_is_number(v);
  if (strcmp(want, "string") == 0) return json_is_string(v);
  if (strcmp(want, "array") == 0) return json_is_array(v);
  if (strcmp(want, "object") == 0) return json_is_object(v);
  if (strcmp(want, "bool") == 0) return json_is_boolean(v);
  if (json_is_string(v)) return strcmp(json_string_value(v), want) == 0;
  if (json_is_number(v)) return json_number_value(v) == strtod(want, NULL);
  if (json_is_boolean(v)) return strcmp(want, json_is_true(v) ? "true" : "false") == 0;
  return 0;
}

int main(int argc, char **argv) {
  json_error_t err;
  json_t *root = argc > 1 ? json_load_file(argv[1], 0, &err) : NULL;
  if (!root) {
    printf("FAIL not JSON: %s\n", argc > 1 ? err.text : "usage: cost_json_check FILE PATH=TYPE...");
    return 1;
  }
  int failed = 0;
  for (int i = 2; i < argc; i++) {
    char path[256];
    const char *eq = strchr(argv[i], '=');
    snprintf(path, sizeof path, "%.*s", (int)(eq - argv[i]), argv[i]);
    json_t *v = find(root, path);
    if (!v || !matches(v, eq + 1)) {
      printf("FAIL %s: wanted %s\n", path, eq + 1);
      failed = 1;
    }
  }
  json_decref(root);
  return failed;
}
