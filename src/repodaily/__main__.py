from repodaily.cli import main

main()
