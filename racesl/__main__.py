from racesl.cli.main import main

raise SystemExit(main())
