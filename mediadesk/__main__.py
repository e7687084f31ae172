from mediadesk.main import main

raise SystemExit(main())
