/* probe_driver.c: runs cmd_probe as `vecbsp probe` would, for the tests. */
int cmd_probe(int argc, char **argv);

int main(int argc, char **argv)
{
    argv[0] = "probe";
    return cmd_probe(argc, argv);
}
