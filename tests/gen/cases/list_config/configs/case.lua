return { 5 }
