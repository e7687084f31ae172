from mediadesk.cli import main

raise SystemExit(main())
