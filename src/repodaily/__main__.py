from repodaily.cli import main

# Guarded: a worker process started by spawning imports this module by another name.
if __name__ == "__main__":
    main()
